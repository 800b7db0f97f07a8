import COpenSSL

/// AES-128-CMAC (RFC 4493) on OpenSSL's `CMAC` MAC, for the S2V step of ``AESSIV``.
///
/// One instance holds one OpenSSL MAC context and its key; it is freed with the instance. Use it
/// on one thread.
final class AESCMAC {
    /// The length of a tag and of the key: one AES block.
    static let blockLength = 16

    /// The fetched `CMAC` algorithm (`EVP_MAC`).
    private let mac: OpaquePointer
    /// Its context (`EVP_MAC_CTX`), re-initialised for each message.
    private let context: OpaquePointer
    /// The 16-byte AES key.
    private let key: [UInt8]

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
        self.key = key
    }

    deinit {
        EVP_MAC_CTX_free(context)
        EVP_MAC_free(mac)
    }

    /// The 16-byte CMAC of `message`.
    func tag(_ message: [UInt8]) throws(AESSIVError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
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
        guard EVP_MAC_update(context, message, message.count) == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_MAC_update failed"))
        }
        var output = [UInt8](repeating: 0, count: Self.blockLength)
        var written = 0
        guard EVP_MAC_final(context, &output, &written, output.count) == 1, written == Self.blockLength else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_MAC_final failed"))
        }
        return output
    }
}
