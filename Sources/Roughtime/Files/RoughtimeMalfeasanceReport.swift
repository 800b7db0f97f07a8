#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Cryptographic proof that a server signed a wrong time (RFC 10049 §8.4): a chain of requests
/// and replies in the order received, each with the server's long-term key and the `rand` its
/// nonce was derived from. Anyone can check it with the keys alone: every reply verifies, every
/// nonce is `H(previous reply || rand)`, and two replies' signed intervals contradict their order.
///
/// Written as JSON with base64 values: ``rfcJSON`` is the RFC's object (`{"responses": [...]}`),
/// ``listJSON`` the bare list that `roughly` (`roughly ecosystem malfeasance`,
/// `roughly.ecosystem.confirm_malfeasance`) writes and reads. Both carry `rand` in every entry;
/// for the first it is the nonce itself (the RFC lets it be omitted there; `roughly` requires it).
package struct RoughtimeMalfeasanceReport: Hashable, Sendable, CustomStringConvertible {
    /// One request and its reply.
    package struct Entry: Hashable, Sendable, Codable {
        /// The 32 bytes the request's nonce was derived from (the first entry: its nonce).
        package var rand: [UInt8]
        /// The long-term key the reply must verify under.
        package var publicKey: [UInt8]
        /// The request packet as sent.
        package var request: [UInt8]
        /// The reply packet as received.
        package var response: [UInt8]

        /// An entry.
        package init(rand: [UInt8], publicKey: [UInt8], request: [UInt8], response: [UInt8]) {
            self.rand = rand
            self.publicKey = publicKey
            self.request = request
            self.response = response
        }

        private enum CodingKeys: String, CodingKey { case rand, publicKey, request, response }

        /// Decodes the four base64 strings (`rand` may be absent, as the RFC allows for the first).
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func bytes(_ key: CodingKeys) throws -> [UInt8] {
                let text = try container.decode(String.self, forKey: key)
                // The RFC's example wraps long values over lines.
                let joined = text.filter { !$0.isWhitespace }
                guard let data = Data(base64Encoded: joined) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: container, debugDescription: "not base64")
                }
                return Array(data)
            }
            self.rand = container.contains(.rand) ? try bytes(.rand) : []
            self.publicKey = try bytes(.publicKey)
            self.request = try bytes(.request)
            self.response = try bytes(.response)
        }

        /// Encodes the four values as base64 strings.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Data(rand).base64EncodedString(), forKey: .rand)
            try container.encode(Data(publicKey).base64EncodedString(), forKey: .publicKey)
            try container.encode(Data(request).base64EncodedString(), forKey: .request)
            try container.encode(Data(response).base64EncodedString(), forKey: .response)
        }
    }

    /// The entries, in the order the replies were received.
    package var entries: [Entry]

    /// A report of `entries`.
    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// The whole chain as a report.
    package init(_ chain: RoughtimeChain) {
        self.entries = chain.links.map {
            Entry(
                rand: $0.rand, publicKey: $0.publicKey, request: $0.measurement.request.bytes,
                response: $0.measurement.response.bytes)
        }
    }

    /// Reads a report: the RFC's `{"responses": [...]}` or `roughly`'s bare list.
    /// - Throws: `invalid_report` for anything else.
    package init(json: [UInt8]) throws(RoughtimeError) {
        let decoder = JSONDecoder()
        if let object = try? decoder.decode(RFCForm.self, from: Data(json)) {
            self.entries = object.responses
        } else {
            do {
                self.entries = try decoder.decode([Entry].self, from: Data(json))
            } catch {
                throw RoughtimeError(.invalidReport, "not a malfeasance report: \(error)")
            }
        }
    }

    /// The RFC 10049 §8.4.1 form: `{"responses": [{"rand", "publicKey", "request", "response"}, …]}`.
    package var rfcJSON: String { Self.json(RFCForm(responses: entries)) }

    /// The bare list `roughly` writes and reads: `[{"rand", "publicKey", "request", "response"}, …]`.
    package var listJSON: String { Self.json(entries) }

    /// `N responses`.
    package var description: String { "malfeasance report of \(entries.count) responses" }

    /// The RFC's top-level object.
    private struct RFCForm: Codable {
        var responses: [Entry]
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Base64 strings and arrays of them always encode.
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

extension RoughtimeMalfeasanceReport {
    /// Checks the report as a third party would, with nothing but its contents: every reply
    /// verifies as the answer to its request under its public key, every nonce after the first is
    /// `H(previous reply || rand)`, and at least one pair of replies contradicts the order.
    /// - Returns: the contradicting pairs (earlier, later), indices into ``entries``; empty when the
    ///   chain is valid but proves nothing.
    /// - Throws: `invalid_report` naming the first entry that does not verify or chain.
    package func contradictions() throws(RoughtimeError) -> [(earlier: Int, later: Int)] {
        guard !entries.isEmpty else { throw RoughtimeError(.invalidReport, "the report has no responses") }
        var responses: [RoughtimeResponse] = []
        for (index, entry) in entries.enumerated() {
            do throws(RoughtimeError) {
                let request = try RoughtimeRequest(parsing: entry.request)
                if let previous = responses.last {
                    let expected = try RoughtimeChain.chainedNonce(
                        after: previous.bytes, rand: entry.rand, length: request.nonce.count)
                    guard request.nonce == expected else {
                        throw RoughtimeError(.nonceMismatch, "the nonce is not H(previous response || rand)")
                    }
                }
                responses.append(
                    try RoughtimeResponse(verifying: entry.response, for: request, publicKey: entry.publicKey)
                )
            } catch {
                throw RoughtimeError(.invalidReport, "response \(index + 1): \(error)")
            }
        }
        return RoughtimeChain.violations(among: responses)
    }
}
