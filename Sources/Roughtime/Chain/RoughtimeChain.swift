import NetClockPlatform
import TimeValues

/// A measurement sequence (RFC 10049 §8.2): valid replies from servers queried one after the
/// other, each request's nonce derived from the previous reply, `nonce = H(reply || rand)`, so
/// that the chain proves the order in which the servers signed.
///
/// In a chain, an honest server's signed interval cannot end before an earlier link's begins:
/// `MIDP_i − RADI_i ≤ MIDP_j + RADI_j` for every earlier *i* and later *j*. A pair that breaks
/// this is a ``violations`` entry, and the chain is then a malfeasance report that proves to
/// anyone holding the servers' public keys that one of them signed a wrong time.
package struct RoughtimeChain: Hashable, Sendable {
    /// One valid reply in the chain.
    package struct Link: Hashable, Sendable {
        /// Which server answered (an index into the caller's list).
        package let server: Int
        /// The server's long-term key.
        package let publicKey: [UInt8]
        /// The 32 random bytes the nonce was derived from; for the first link, the nonce itself.
        package let rand: [UInt8]
        /// The request, the reply and their timing.
        package let measurement: RoughtimeMeasurement

        /// A link.
        package init(server: Int, publicKey: [UInt8], rand: [UInt8], measurement: RoughtimeMeasurement) {
            self.server = server
            self.publicKey = publicKey
            self.rand = rand
            self.measurement = measurement
        }
    }

    /// The links, in the order the replies arrived.
    package private(set) var links: [Link] = []

    /// An empty chain.
    package init() {}

    /// The nonce of the next request, `length` bytes (32; 64 for Google-Roughtime), and the `rand`
    /// it comes from: random for the first request, `H(previous reply || rand)` (SHA-512 truncated
    /// to `length`) after it, with a fresh 32-byte `rand`.
    package func nextNonce(length: Int, random: some RoughtimeRandomSource) throws(RoughtimeError)
        -> (nonce: [UInt8], rand: [UInt8])
    {
        guard let previous = links.last else {
            let nonce = random.bytes(length)
            return (nonce, nonce)
        }
        let rand = random.bytes(32)
        return (
            try Self.chainedNonce(after: previous.measurement.response.bytes, rand: rand, length: length),
            rand
        )
    }

    /// `H(reply || rand)`, SHA-512 truncated to `length` bytes.
    package static func chainedNonce(after reply: [UInt8], rand: [UInt8], length: Int) throws(RoughtimeError)
        -> [UInt8]
    {
        try RoughtimeMerkle.sha512(reply, rand, length: length)
    }

    /// Adds a link whose request used the nonce ``nextNonce(length:random:)`` gave with `rand`.
    package mutating func append(_ link: Link) {
        links.append(link)
    }

    /// Every pair of links (earlier, later) whose signed intervals contradict their order:
    /// `MIDP_earlier − RADI_earlier > MIDP_later + RADI_later`.
    package var violations: [(earlier: Int, later: Int)] {
        Self.violations(among: links.map(\.measurement.response))
    }

    /// The pairs (earlier, later) of `responses`, in the order received, whose signed intervals
    /// contradict that order.
    package static func violations(among responses: [RoughtimeResponse]) -> [(earlier: Int, later: Int)] {
        var found: [(earlier: Int, later: Int)] = []
        for later in responses.indices {
            let late = responses[later]
            for earlier in responses.indices where earlier < later {
                let early = responses[earlier]
                if early.midpoint - early.radius > late.midpoint + late.radius {
                    found.append((earlier, later))
                }
            }
        }
        return found
    }

    /// The chain as a malfeasance report, when it proves one (``violations`` is not empty).
    package var malfeasanceReport: RoughtimeMalfeasanceReport? {
        violations.isEmpty ? nil : RoughtimeMalfeasanceReport(self)
    }
}
