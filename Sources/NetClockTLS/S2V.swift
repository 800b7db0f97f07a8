/// RFC 5297's S2V ("string to vector", §2.4): the synthetic IV of AES-SIV, on a keyed ``AESCMAC``.
///
/// `CMAC(K, 0¹²⁸)`, the first step of every S2V, depends on the key alone: it is computed once, when
/// the key is set. Blocks are ``SIVBlock``s in place; the strings are MACed where they lie.
struct S2V {
    /// The CMAC keyed with the MAC half of the AES-SIV key.
    let cmac: AESCMAC
    /// `CMAC(K, 0¹²⁸)`.
    let start: SIVBlock

    /// S2V keyed with `macKey` (16 bytes).
    init(macKey: [UInt8]) throws(AESSIVError) {
        let cmac = try AESCMAC(key: macKey)
        guard let start = SIVBlock.zero.withUnsafeBytes({ cmac.tag($0) }) else { throw AESCMAC.failure() }
        self.cmac = cmac
        self.start = start
    }

    /// S2V over `components` (the associated-data items, nonce last) followed by `plaintext`.
    func vector(components: [ArraySlice<UInt8>], plaintext: UnsafeRawBufferPointer) throws(AESSIVError)
        -> SIVBlock
    {
        try vector(plaintext: plaintext) { d throws(AESSIVError) in
            for component in components { try absorb(component, into: &d) }
        }
    }

    /// S2V over two associated-data items (an NTS packet's bytes before the authenticator and its
    /// nonce) followed by `plaintext`, with no array of them.
    func vector(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer
    )
        throws(AESSIVError) -> SIVBlock
    {
        try vector(plaintext: plaintext) { d throws(AESSIVError) in
            try absorb(first, into: &d)
            try absorb(second, into: &d)
        }
    }

    /// One associated-data item: `D = dbl(D) xor CMAC(K, item)`.
    private func absorb(_ component: ArraySlice<UInt8>, into d: inout SIVBlock) throws(AESSIVError) {
        guard let tag = component.withUnsafeBytes({ cmac.tag($0) }) else { throw AESCMAC.failure() }
        d = d.doubled ^ tag
    }

    /// ``absorb(_:into:)`` for an item where it lies in memory.
    private func absorb(_ component: UnsafeRawBufferPointer, into d: inout SIVBlock) throws(AESSIVError) {
        guard let tag = cmac.tag(component) else { throw AESCMAC.failure() }
        d = d.doubled ^ tag
    }

    /// S2V with the associated data absorbed by `components` (from `CMAC(K, 0¹²⁸)`), then
    /// `plaintext`.
    private func vector(
        plaintext: UnsafeRawBufferPointer, components: (inout SIVBlock) throws(AESSIVError) -> Void
    ) throws(AESSIVError) -> SIVBlock {
        var d = start
        try components(&d)
        let t: SIVBlock?
        if plaintext.count >= AESCMAC.blockLength {
            // T = plaintext xorend D.
            t = cmac.tag(plaintext, xoringEndWith: d)
        } else {
            // T = dbl(D) xor pad(plaintext): 10* padding.
            var padded = SIVBlock.zero
            padded.withUnsafeMutableBytes { bytes in
                bytes.copyMemory(from: plaintext)
                bytes[plaintext.count] = 0x80
            }
            t = (d.doubled ^ padded).withUnsafeBytes { cmac.tag($0) }
        }
        guard let t else { throw AESCMAC.failure() }
        return t
    }

    /// S2V keyed with `macKey` over `components` and `plaintext`, for one message.
    static func vector(macKey: [UInt8], components: [[UInt8]], plaintext: [UInt8]) throws(AESSIVError)
        -> [UInt8]
    {
        let s2v = try S2V(macKey: macKey)
        var result: Result<SIVBlock, AESSIVError> = .failure(AESCMAC.failure())
        plaintext.withUnsafeBytes { bytes in
            result = Result { () throws(AESSIVError) in
                try s2v.vector(components: components.map { $0[...] }, plaintext: bytes)
            }
        }
        return try result.get().array
    }
}
