import NetClockTLS
import Roughtime
import SNTP
import TimeValues

extension FakeRoughtimeServer {
    /// What became of one request.
    package struct Answer: Hashable, Sendable {
        /// The reply to send, or nil.
        package var reply: [UInt8]?
        /// The version negotiated, when the request was served.
        package var version: RoughtimeVersion?
        /// Why the request got no reply, when it got none.
        package var dropped: String?
        /// How many hashes the reply's Merkle path holds.
        package var pathLength = 0
    }

    /// The server's protocol logic, without sockets: answers a batch of request datagrams at one
    /// instant under one signature per version (one Merkle tree each), as the configuration says.
    /// Its state (the delegated key, the first reply for ``Behaviour/replay``, the garbage
    /// generator) is confined to one thread.
    package struct Responder: Sendable {
        /// The online key the delegations certify.
        private let delegatedKey: Ed25519.PrivateKey
        /// The first reply this responder built, which ``Behaviour/replay`` sends again.
        private var firstReply: [UInt8]?
        /// Bytes for garbage and foreign nonces.
        private var generator: SplitMix64

        /// A responder with a fresh delegated key.
        /// - Throws: ``Ed25519Error`` when OpenSSL cannot make a key.
        package init(seed: UInt64 = UInt64.random(in: 1...UInt64.max)) throws(Ed25519Error) {
            var generator = SplitMix64(seed: seed)
            self.delegatedKey = try Ed25519.PrivateKey.generate(using: &generator)
            self.generator = generator
        }

        /// Answers `requests`, all received together, with the server's clock reading `now`
        /// (before the configured offset). Requests shorter than 1024 bytes, malformed, with a
        /// wrong `SRV`, or offering no served version get no reply (a server never explains).
        package mutating func answer(_ requests: [[UInt8]], at now: UnixTime, configuration: Configuration)
            -> [Answer]
        {
            var answers = [Answer](repeating: Answer(), count: requests.count)
            var groups: [RoughtimeVersion: [(index: Int, request: RoughtimeRequest)]] = [:]
            for (index, datagram) in requests.enumerated() {
                switch Self.accept(datagram, configuration: configuration) {
                case .success(let (request, version)): groups[version, default: []].append((index, request))
                case .failure(let reason): answers[index].dropped = reason.description
                }
            }
            let time = now + configuration.offset
            for (version, members) in groups.sorted(by: { $0.key < $1.key }) {
                do {
                    let built = try build(
                        version, members.map(\.request), at: time, configuration: configuration)
                    for (position, member) in members.enumerated() {
                        answers[member.index] = built[position]
                    }
                } catch {
                    for member in members { answers[member.index].dropped = "cannot sign: \(error)" }
                }
            }
            return answers
        }

        /// The request and the version to answer it with, or why it is dropped.
        private static func accept(_ datagram: [UInt8], configuration: Configuration)
            -> Result<(RoughtimeRequest, RoughtimeVersion), RoughtimeError>
        {
            guard datagram.count >= RoughtimePacket.requestSize else {
                return .failure(RoughtimeError(.truncatedMessage, "a \(datagram.count)-byte request"))
            }
            do throws(RoughtimeError) {
                let request = try RoughtimeRequest(parsing: datagram)
                let served = Set(configuration.versions)
                let version: RoughtimeVersion
                if request.isGoogle {
                    guard served.contains(.google) else {
                        throw RoughtimeError(.versionNotOffered, "Google-Roughtime is not served")
                    }
                    version = .google
                } else {
                    let common = served.intersection(request.offeredVersions).subtracting([.google])
                    guard let chosen = common.contains(.rfc) ? .rfc : common.max() else {
                        throw RoughtimeError(.versionNotOffered, "no served version offered")
                    }
                    version = chosen
                    let message = try RoughtimeMessage(
                        parsing: try RoughtimePacket.message(in: datagram), what: "request")
                    if let srv = message.value(.srv),
                        srv != (try RoughtimeRequest.serverHash(configuration.publicKey))
                    {
                        throw RoughtimeError(.invalidServer, "SRV names another key")
                    }
                }
                return .success((request, version))
            } catch {
                return .failure(error)
            }
        }

        /// The answers to `requests` (all of `version`) under one tree and one signature.
        private mutating func build(
            _ version: RoughtimeVersion, _ requests: [RoughtimeRequest], at time: UnixTime,
            configuration: Configuration
        ) throws -> [Answer] {
            guard let profile = RoughtimeProfile(version) else { return [] }
            let behaviour = configuration.behaviour
            var leaves = try requests.map { request throws(RoughtimeError) in
                try RoughtimeMerkle.leaf(
                    profile.leafCoversRequest ? request.bytes : request.nonce, profile: profile)
            }
            if behaviour == .wrongMerklePath, leaves.count == 1 {
                leaves[0] = try RoughtimeMerkle.leaf(leaves[0], profile: profile)  // another leaf's root
            }
            let tree = try Self.tree(leaves, profile: profile)

            let unit: Duration = profile.countsMicroseconds ? .microseconds(1) : .seconds(1)
            let microseconds = profile.countsMicroseconds
            let midpoint = UInt64(
                clamping: microseconds ? time.seconds * 1_000_000 + time.nanoseconds / 1000 : time.seconds)
            let halfLife = UInt64(clamping: Int64((configuration.delegationHalfLife / unit).rounded(.down)))
            var radius = UInt32(clamping: Int64((configuration.radius / unit).rounded(.up)))
            radius = behaviour == .zeroRadius ? 0 : max(radius, 1)
            let (start, end): (UInt64, UInt64)
            switch behaviour {
            case .expiredDelegation: (start, end) = (midpoint &- 2 * halfLife, midpoint &- halfLife)
            case .midpointOutsideDelegation: (start, end) = (midpoint + halfLife, midpoint + 2 * halfLife)
            default: (start, end) = (midpoint &- halfLife, midpoint + halfLife)
            }

            let signedVersion = behaviour == .wrongVersion ? RoughtimeVersion.draft(99) : version
            var signed = [
                RoughtimeMessage.Entry(.radi, RoughtimeMessage.bytes(radius)),
                RoughtimeMessage.Entry(.midp, RoughtimeMessage.bytes(midpoint)),
                RoughtimeMessage.Entry(.root, tree.root),
            ]
            if profile.hasSignedVersion {
                let served = Set(configuration.versions.filter { $0 != .google } + [signedVersion]).sorted()
                signed.append(RoughtimeMessage.Entry(.ver, RoughtimeMessage.bytes(signedVersion.rawValue)))
                signed.append(
                    RoughtimeMessage.Entry(
                        .vers, served.prefix(32).flatMap { RoughtimeMessage.bytes($0.rawValue) }))
            }
            let signedBytes = RoughtimeMessage(signed).encoded
            var responseSignature = try delegatedKey.signature(of: profile.responseContext, signedBytes)
            let delegation = RoughtimeMessage([
                RoughtimeMessage.Entry(.pubk, delegatedKey.publicKey),
                RoughtimeMessage.Entry(.mint, RoughtimeMessage.bytes(start)),
                RoughtimeMessage.Entry(.maxt, RoughtimeMessage.bytes(end)),
            ]).encoded
            var delegationSignature = try configuration.longTermKey.signature(
                of: profile.delegationContext, delegation)
            if behaviour == .badResponseSignature { responseSignature[7] ^= 0x10 }
            if behaviour == .badDelegationSignature { delegationSignature[7] ^= 0x10 }
            if behaviour == .truncatedSignature { responseSignature.removeLast(4) }
            let certificate = RoughtimeMessage([
                RoughtimeMessage.Entry(.sig, delegationSignature), RoughtimeMessage.Entry(.dele, delegation),
            ]).encoded

            return requests.enumerated().map { index, request in
                var path = tree.paths[index]
                if behaviour == .wrongMerklePath, !path.isEmpty { path[3] ^= 0x01 }
                var nonce = request.nonce
                if behaviour == .foreignNonce {
                    nonce = SystemRoughtimeRandom.bytes(nonce.count, using: &generator)
                }
                var entries = [
                    RoughtimeMessage.Entry(.sig, responseSignature), RoughtimeMessage.Entry(.nonc, nonce),
                    RoughtimeMessage.Entry(.path, path), RoughtimeMessage.Entry(.srep, signedBytes),
                    RoughtimeMessage.Entry(.cert, certificate),
                    RoughtimeMessage.Entry(.indx, RoughtimeMessage.bytes(UInt32(index))),
                ]
                if profile.requiresType && behaviour != .missingType || behaviour == .wrongType {
                    entries.append(
                        RoughtimeMessage.Entry(
                            .type, RoughtimeMessage.bytes(UInt32(behaviour == .wrongType ? 0 : 1))))
                }
                if profile.isFramed && !profile.hasSignedVersion {
                    entries.append(
                        RoughtimeMessage.Entry(.ver, RoughtimeMessage.bytes(signedVersion.rawValue)))
                }
                if behaviour == .oversizedReply {
                    entries.append(
                        RoughtimeMessage.Entry(RoughtimeTag("ZZZZ"), [UInt8](repeating: 0, count: 1100)))
                }
                var message = RoughtimeMessage(entries).encoded
                if behaviour == .unsortedTags || behaviour == .duplicateTag {
                    var ordered = RoughtimeMessage(entries).entries
                    if behaviour == .unsortedTags {
                        ordered.swapAt(0, 1)
                    } else if let indexEntry = ordered.firstIndex(where: { $0.tag == .indx }) {
                        ordered.insert(ordered[indexEntry], at: indexEntry)
                    }
                    message = RoughtimeMessage.encode(ordered)
                }
                var reply = profile.isFramed ? RoughtimePacket.frame(message) : message
                switch behaviour {
                case .garbage: reply = SystemRoughtimeRandom.bytes(400, using: &generator)
                case .truncatedReply: reply.removeLast(8)
                case .replay: reply = firstReply ?? reply
                default: break
                }
                if firstReply == nil { firstReply = reply }
                if behaviour == .silent { return Answer(version: version, dropped: "silent") }
                // Never amplify (RFC 10049 §9.7), unless told to.
                if reply.count > request.bytes.count && behaviour != .oversizedReply {
                    return Answer(
                        version: version,
                        dropped: "a \(reply.count)-byte reply to a \(request.bytes.count)-byte request")
                }
                return Answer(reply: reply, version: version, pathLength: path.count / profile.hashLength)
            }
        }

        /// A Merkle tree over `leaves` (padded to a power of two with copies of the last leaf):
        /// its root and each leaf's path.
        private static func tree(_ leaves: [[UInt8]], profile: RoughtimeProfile) throws(RoughtimeError)
            -> (root: [UInt8], paths: [[UInt8]])
        {
            var level = leaves
            var width = 1
            while width < level.count { width *= 2 }
            while level.count < width, let last = level.last { level.append(last) }
            var paths = [[UInt8]](repeating: [], count: leaves.count)
            var positions = Array(leaves.indices)
            while level.count > 1 {
                for leaf in paths.indices { paths[leaf] += level[positions[leaf] ^ 1] }
                var next: [[UInt8]] = []
                for pair in stride(from: 0, to: level.count, by: 2) {
                    next.append(try RoughtimeMerkle.node(level[pair], level[pair + 1], profile: profile))
                }
                level = next
                positions = positions.map { $0 / 2 }
            }
            return (level.first ?? [], paths)
        }
    }
}
