import COpenSSL

/// AES-128-CMAC (RFC 4493) on OpenSSL's `CMAC` MAC, for the S2V step of ``AESSIV``.
///
/// The key is set once, when the instance is made (the MAC's AES key schedule and subkeys are
/// computed then); each message restarts the context with that key (`EVP_MAC_init` with no key),
/// so no message pays for a fetch, an allocation or a key schedule. One instance holds one OpenSSL
/// MAC context, freed with it; use it on one thread at a time.
final class AESCMAC {
    /// The length of a tag and of the key: one AES block.
    static let blockLength = 16

    /// The fetched `CMAC` algorithm (`EVP_MAC`).
    private let mac: OpaquePointer
    /// Its context (`EVP_MAC_CTX`), keyed once.
    private let context: OpaquePointer

    /// A CMAC keyed with `key`, which must be 16 bytes.
    init(key: [UInt8]) throws(AESSIVError) {
        guard key.count == Self.blockLength else { throw .cryptoFailure("CMAC key of \(key.count) bytes") }
        OpenSSLErrorQueue.clear()
        guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_MAC_fetch(CMAC) failed"))
        }
        guard let context = EVP_MAC_CTX_new(mac) else {
            EVP_MAC_free(mac)
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_MAC_CTX_new failed"))
        }
        self.mac = mac
        self.context = context
        var cipherName = Array("AES-128-CBC".utf8CString)
        let initialised = cipherName.withUnsafeMutableBufferPointer { name -> Int32 in
            var parameters = [
                OSSL_PARAM_construct_utf8_string(netclock_OSSL_MAC_PARAM_CIPHER(), name.baseAddress, 0),
                OSSL_PARAM_construct_end(),
            ]
            return EVP_MAC_init(context, key, key.count, &parameters)
        }
        guard initialised == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_MAC_init failed"))
        }
    }

    deinit {
        EVP_MAC_CTX_free(context)
        EVP_MAC_free(mac)
    }

    /// The CMAC of `message`; nil when OpenSSL failed (``failure(_:)`` says why).
    func tag(_ message: UnsafeRawBufferPointer) -> SIVBlock? {
        guard begin(), update(message) else { return nil }
        return finish()
    }

    /// Starts a message under the key; false when OpenSSL failed. The caller empties the error
    /// queue once per AES-SIV message (``OpenSSLErrorQueue/clearIfNotEmpty()``), not per CMAC.
    func begin() -> Bool {
        EVP_MAC_init(context, nil, 0, nil) == 1
    }

    /// Adds `bytes` to the message; false when OpenSSL failed.
    func update(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return true }
        return EVP_MAC_update(context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
            == 1
    }

    /// The tag of the message; nil when OpenSSL failed.
    func finish() -> SIVBlock? {
        var output = SIVBlock.zero
        var written = 0
        let finished = output.withUnsafeMutableBytes { bytes in
            EVP_MAC_final(
                context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, bytes.count)
        }
        guard finished == 1, written == Self.blockLength else { return nil }
        return output
    }

    /// The error of a failed ``tag(_:)``, ``begin()``, ``update(_:)`` or ``finish()``.
    static func failure() -> AESSIVError {
        .cryptoFailure(OpenSSLErrorQueue.reason(or: "CMAC failed"))
    }
}
