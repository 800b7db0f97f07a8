import Testing

@testable import Roughtime

/// Every Roughtime refusal and failure code is snake_case, as every other code the package prints
/// (the CLIReference article): they reach the JSON as the `reason` of a Roughtime server.
@Suite struct RoughtimeErrorCodeTests {
    static let codes: [RoughtimeError.Code] = [
        .badFraming, .framingLengthMismatch, .truncatedMessage, .emptyMessage, .misalignedMessage,
        .badOffsets,
        .unsortedTags, .duplicateTag, .missingTag, .truncatedTag, .oversizedTag, .amplification,
        .nonceMismatch,
        .missingVersion, .versionNotOffered, .versionConflict, .badVersionList, .missingType, .wrongType,
        .zeroRadius, .timeOutOfRange, .badPath, .merklePathMismatch, .merkleIndexOutOfRange,
        .badDelegationSignature, .badResponseSignature, .invalidDelegation, .delegationExpired,
        .delegationNotYetValid, .timedOut, .transport, .cancelled, .invalidServer, .noServers,
        .notEnoughReplies, .noMajority, .cryptoFailure, .invalidEcosystem, .invalidReport,
    ]

    @Test func everyCodeIsSnakeCase() {
        for code in Self.codes {
            let words = code.rawValue.split(separator: "_", omittingEmptySubsequences: false)
            let valid =
                !words.isEmpty
                && words.allSatisfy {
                    !$0.isEmpty && $0.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
                }
            #expect(valid, "not snake_case: \(code.rawValue)")
        }
        #expect(Set(Self.codes.map(\.rawValue)).count == Self.codes.count, "codes are distinct")
    }
}
