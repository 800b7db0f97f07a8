import NTS
import NetClockPlatform
import NetClockTLS

extension FakeNTSServer {
    /// Makes and opens the server's cookies, like chronyd does: a cookie is a 4-byte key
    /// identifier, a 16-byte random nonce, and the C2S and S2C keys sealed with AES-SIV under the
    /// server's random master key (the nonce as associated data): 100 bytes, opaque to clients.
    package struct CookieJar: Sendable {
        /// The keys a cookie carries.
        package struct Keys: Hashable, Sendable {
            /// The client-to-server key (requests).
            package var c2s: [UInt8]
            /// The server-to-client key (replies).
            package var s2c: [UInt8]

            /// The two keys of one association.
            package init(c2s: [UInt8], s2c: [UInt8]) {
                self.c2s = c2s
                self.s2c = s2c
            }
        }

        /// The length of the key identifier at the start of a cookie.
        static let keyIDLength = 4
        /// The length of the random nonce after the key identifier.
        static let nonceLength = 16
        /// The length of every cookie: identifier, nonce, tag and two 32-byte keys.
        static let cookieLength = keyIDLength + nonceLength + AESSIV.tagLength + 2 * AESSIV.keyLength

        /// The identifier of the master key, the first bytes of every cookie.
        let keyID: [UInt8]
        /// Zero bytes appended to every cookie, so tests can ask for long ones.
        let padding: Int
        /// The random master key that seals the cookies.
        private let masterKey: [UInt8]
        /// The master key and the associations' keys, keyed once.
        let keyCache = KeyCache()

        /// A jar with a fresh random master key and key identifier, whose cookies carry `padding`
        /// (clamped to 0…2048) zero bytes after the sealed keys.
        package init(padding: Int = 0) {
            self.padding = min(max(padding, 0), 2048)
            keyID = Self.randomBytes(Self.keyIDLength)
            masterKey = Self.randomBytes(AESSIV.keyLength)
        }

        /// A new cookie carrying `keys`; nil if sealing fails (wrong key lengths).
        package func cookie(for keys: Keys) -> [UInt8]? {
            let nonce = Self.randomBytes(Self.nonceLength)
            guard
                let sealed = try? keyCache.keyed(masterKey)?.seal(
                    associatedData: [nonce], plaintext: keys.c2s + keys.s2c)
            else { return nil }
            return keyID + nonce + sealed + [UInt8](repeating: 0, count: padding)
        }

        /// The keys in `cookie`, or nil when this jar did not make it (another key identifier, a
        /// wrong length, or a failed authentication).
        func open(_ cookie: [UInt8]) -> Keys? {
            guard cookie.count == Self.cookieLength + padding, Array(cookie.prefix(Self.keyIDLength)) == keyID
            else {
                return nil
            }
            let nonce = Array(cookie[Self.keyIDLength..<(Self.keyIDLength + Self.nonceLength)])
            let sealed = Array(cookie[(Self.keyIDLength + Self.nonceLength)..<Self.cookieLength])
            guard
                let plaintext = try? keyCache.keyed(masterKey)?.open(
                    associatedData: [nonce], ciphertext: sealed),
                plaintext.count == 2 * AESSIV.keyLength
            else { return nil }
            return Keys(
                c2s: Array(plaintext.prefix(AESSIV.keyLength)), s2c: Array(plaintext.suffix(AESSIV.keyLength))
            )
        }

        /// `count` bytes from the kernel's CSPRNG: one `getrandom(2)` (not one per byte, as
        /// `UInt8.random` makes: ~30 system calls a reply slowed the server enough that the
        /// benchmark's clients slept for every reply and paid the context switches); the system's
        /// generator if that fails. (Not through an `inout` generator: the system one has no size,
        /// and ThreadSanitizer crashed on such an access.)
        static func randomBytes(_ count: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            if case .success = bytes.withUnsafeMutableBytes({ Syscalls.fillRandom($0) }) { return bytes }
            return (0..<count).map { _ in UInt8.random(in: 0...255) }
        }
    }
}
