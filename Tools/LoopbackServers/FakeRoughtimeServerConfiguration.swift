import NetClockTLS
import Roughtime

extension FakeRoughtimeServer {
    /// How a fake Roughtime server behaves.
    package struct Configuration: Hashable, Sendable {
        /// The numeric loopback address to bind. Default `127.0.0.1`.
        package var host = "127.0.0.1"
        /// The UDP port; 0 (default) picks a free one.
        package var port: UInt16 = 0
        /// The long-term key. Default: a fresh one for every configuration.
        package var longTermKey: Ed25519.PrivateKey
        /// Added to this machine's clock for every midpoint: a validly signed lie when not zero.
        package var offset: Duration = .zero
        /// The signed radius (`RADI`): whole seconds, or microseconds for Google-Roughtime. Default 3 s.
        package var radius: Duration = .seconds(3)
        /// The versions served; a request offering none of them is ignored. Default every version
        /// the client speaks.
        package var versions: [RoughtimeVersion] = RoughtimeVersion.supported
        /// How the server misbehaves.
        package var behaviour: Behaviour = .normal
        /// How long the server waits after a batch's first request for more before it answers them
        /// all under one signature (one Merkle tree). Default zero: each request alone.
        package var batchWindow: Duration = .zero
        /// The most requests in one batch.
        package var maximumBatch = 64
        /// How many requests, from the first on, get no reply at all (lost datagrams). Default 0.
        package var ignoredRequests = 0
        /// How long each reply is held back before it is sent. Default zero.
        package var replyDelay: Duration = .zero
        /// How long the delegation is valid on either side of the signed midpoint. Default 1 hour.
        package var delegationHalfLife: Duration = .seconds(3600)

        /// A configuration with a fresh long-term key and the given offset and behaviour.
        /// - Throws: ``Ed25519Error`` when OpenSSL cannot make a key.
        package init(offset: Duration = .zero, behaviour: Behaviour = .normal) throws(Ed25519Error) {
            self.longTermKey = try Ed25519.PrivateKey.generate()
            self.offset = offset
            self.behaviour = behaviour
        }

        /// A configuration with the given long-term key.
        package init(
            longTermKey: Ed25519.PrivateKey, offset: Duration = .zero, behaviour: Behaviour = .normal
        ) {
            self.longTermKey = longTermKey
            self.offset = offset
            self.behaviour = behaviour
        }

        /// The long-term public key clients must know.
        package var publicKey: [UInt8] { longTermKey.publicKey }
    }
}
