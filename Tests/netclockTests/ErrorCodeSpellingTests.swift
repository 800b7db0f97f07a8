import Foundation
import HTTPTime
import LoopbackServers
import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import Testing
import TimeValues

@testable import NetclockCLI
@testable import NetworkClock
import WallClockReference

/// Every error, rejection and status code the CLI prints in `--json` is snake_case: lower-case
/// words of letters and digits joined by `_` (the CLIReference article). Checked twice: through
/// the JSON encoders over every code value the library defines, and end to end over the CLI's
/// failure modes against loopback servers.
@Suite(.serialized, .wallClockReference)
struct ErrorCodeSpellingTests {
    /// Whether `code` is spelt `^[a-z0-9]+(_[a-z0-9]+)*$`.
    static func isSnakeCase(_ code: String) -> Bool {
        code.wholeMatch(of: /[a-z0-9]+(_[a-z0-9]+)*/) != nil
    }

    /// The keys whose string values are codes, wherever they appear in a `--json` object:
    /// `status` and `reason` of a sample are codes, a source's `reason` is a sentence for people.
    static let codeKeys: Set<String> = ["error_code", "status", "downgrade"]

    /// Every code in `json`: the values of ``codeKeys`` at any depth, and each sample's `reason`.
    static func codes(in json: Any, inSamples: Bool = false) -> [String] {
        switch json {
        case let object as [String: Any]:
            return object.flatMap { key, value -> [String] in
                if let text = value as? String, codeKeys.contains(key) || (inSamples && key == "reason") {
                    return [text]
                }
                return codes(in: value, inSamples: key == "samples")
            }
        case let array as [Any]:
            return array.flatMap { codes(in: $0, inSamples: inSamples) }
        default:
            return []
        }
    }

    static func decode(_ line: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(line.utf8))
    }

    /// Every store code, as ``AnchorStoreError/Code`` declares them.
    static let anchorStoreCodes: [AnchorStoreError.Code] = [
        .missing, .empty, .truncated, .corrupt, .unsupportedVersion, .differentBoot, .bootIDUnavailable,
        .futureDated, .unreadable, .noDefaultLocation, .writeFailed, .invalidAnchor, .symbolicLink,
        .notRegularFile, .wrongOwner, .unsafePermissions, .unsafeDirectory, .differentTrustRoots,
        .lockTimeout, .timeNamespaceUnavailable,
    ]

    /// One value of every rejection reason.
    static let rejections: [RejectionReason] = [
        .tooShort(length: 3), .originMismatch, .staleReply, .duplicateReply, .wrongMode(3),
        .unsupportedVersion(7), .kissOfDeath(.rate), .unsynchronized, .stratumTooHigh(16),
        .zeroReceiveTimestamp, .zeroTransmitTimestamp, .receiveAfterTransmit,
        .rootDistanceTooLarge(.seconds(2), limit: .seconds(1)), .negativeDelay(.milliseconds(-1)),
        .offsetTooLarge(.seconds(9), limit: .seconds(1)),
        .unauthenticated(ProtectionFailure(ProtectionFailureCode(rawValue: "nts_bad_authenticator"), "bad")),
    ]

    @Test func everyCodeTheJSONEncodersCanPrintIsSnakeCase() throws {
        var printed: [String] = []
        for code in HTTPTimeError.Code.allCases {
            let url = try #require(URL(string: "http://127.0.0.1:1/"))
            let report = SyncReport.Server(url: url, error: HTTPTimeError(code, "reason"))
            printed += Self.codes(
                in: try Self.decode(JSONOutput.line(HTTPSourceJSON(report, try #require(report.http)))))
        }
        for code in Self.anchorStoreCodes {
            let error = AnchorStoreError(code: code, reason: "reason", path: "/state")
            printed += Self.codes(in: try Self.decode(JSONOutput.line(StateFailureJSON(error))))
        }
        for code: SyncError.Code in [
            .noServers, .noUsableSource, .noMajority, .cancelled, .unauthenticatedOnly,
        ] {
            printed.append(code.rawValue)
            let json = try Self.decode(
                JSONOutput.line(SyncFailureJSON(SyncError(code: code, reason: "reason"))))
            printed += Self.codes(in: json)
        }
        let statuses: [SyncReport.SourceStatus] = [
            .selected, .survivor, .falseticker, .kissOfDeath, .timeout, .refused, .rejected, .error,
            .inconsistent, .skipped, .unauthenticated,
        ]
        printed += statuses.map(\.rawValue)
        printed += Self.rejections.map(\.code)
        // The fixture's reports hold every sample outcome (sample, timeout, refused, failed,
        // rejected) and a failed HTTP source.
        printed += Self.codes(
            in: try Self.decode(JSONOutput.line(SyncReportJSON(JSONContractFixture.report))))
        printed += Self.codes(
            in: try Self.decode(JSONOutput.line(SyncFailureJSON(JSONContractFixture.failure))))

        #expect(printed.count > 60, "only \(printed.count) codes were checked")
        for code in printed {
            #expect(Self.isSnakeCase(code), "not snake_case: \(code)")
        }
    }

    /// The codes behind the ones the JSON prints (parsers, TLS, NTS, the store) share the spelling,
    /// so that a code that surfaces later (in a reason, or a new field) needs no conversion.
    @Test func everyLibraryCodeIsSnakeCase() {
        // The check itself refuses the spellings this replaced.
        for old in ["certificate-rejected", "handshake failed", "Timeout", "a__b", "_a", ""] {
            #expect(!Self.isSnakeCase(old), "\(old) passes")
        }
        var codes: [String] = []
        codes += HTTPDateError.Code.allCases.map(\.rawValue)
        codes += HTTPResponseHeadError.Code.allCases.map(\.rawValue)
        codes += HTTPTimestampError.Code.allCases.map(\.rawValue)
        codes += Self.anchorStoreCodes.map(\.rawValue)
        let sntp: [SNTPError.Code] = [
            .timeout, .refused, .kissOfDeath, .rejected, .resolutionFailed, .transport, .cancelled,
            .invalidServerName, .malformedPacket,
        ]
        codes += sntp.map(\.rawValue)
        codes += TLSErrorCode.allCases.map(\.rawValue)
        codes += AESSIVErrorCode.allCases.map(\.rawValue) + DigestErrorCode.allCases.map(\.rawValue)
        // NTS-KE failures carry the TLS code: `nts_ke_tls_<code>`.
        codes += TLSErrorCode.allCases.map { "nts_ke_tls_\($0)" }
        let nts: [NTSError.Code] = [
            .truncated, .responseTooLarge, .unknownCriticalRecord, .serverError, .malformedRecord,
            .duplicateRecord, .noNTPv4, .unsupportedAEAD, .invalidServer, .noCookies, .bytesAfterEnd,
            .unencodable, .truncatedField, .packetTooLarge, .misalignedField, .fieldTooShort,
            .noExtensionFields, .missingAuthenticator, .duplicateAuthenticator, .authenticatorNotLast,
            .malformedAuthenticator, .duplicateUniqueIdentifier, .missingUniqueIdentifier,
        ]
        codes += nts.map { "nts_ke_\($0.rawValue)" }
        let sync: [SyncError.Code] = [
            .noServers, .noUsableSource, .noMajority, .cancelled, .unauthenticatedOnly,
            .authenticatedSourcesDisagree,
        ]
        codes += sync.map(\.rawValue)
        // `set`'s refusals, its actions and methods.
        let refusals: [NetworkClock.SystemClockRefusal.Code] = [
            .beforeFloor, .unauthenticatedCorrectionTooLarge, .boundTooWide, .otherTimeDaemon, .notPermitted,
            .setFailed,
        ]
        codes += refusals.map(\.rawValue)
        codes += ["none", "slew", "step", "refused", "automatic"]
        // The certificate_time values and the Roughtime servers' statuses the JSON prints.
        codes += SyncReport.CertificateCheck.allCases.map(\.rawValue)
        codes += ["agreed", "falseticker", "unresolved", "rejected", "timed_out", "failed"]
        for code in codes {
            #expect(Self.isSnakeCase(code), "not snake_case: \(code)")
        }
    }

    /// Runs the CLI with `arguments` and returns the codes of its `--json` output.
    static func codesPrinted(by arguments: [String], expecting status: Int32 = 1) async throws -> [String] {
        let output = try await CLIRunner.run(arguments + ["--json"])
        #expect(output.status == status, "\(arguments): stderr \(output.stderr)")
        return codes(in: try decode(output.stdout))
    }

    @Test func theCLIsFailureModesPrintSnakeCaseCodes() async throws {
        var printed: [String: [String]] = [:]

        var silent = FakeNTPServer.Configuration()
        silent.behaviour = .noReply
        let quiet = try FakeNTPServer(configuration: silent)
        defer { quiet.stop() }
        var kissing = FakeNTPServer.Configuration()
        kissing.behaviour = .kissOfDeath(code: "RATE")
        let kiss = try FakeNTPServer(configuration: kissing)
        defer { kiss.stop() }
        var spoofing = FakeNTPServer.Configuration()
        spoofing.behaviour = .wrongOrigin
        let spoof = try FakeNTPServer(configuration: spoofing)
        defer { spoof.stop() }
        let ntp = [
            "query", "127.0.0.1:\(quiet.port)", "127.0.0.1:\(kiss.port)", "127.0.0.1:\(spoof.port)",
            // A closed UDP port: ICMP port unreachable.
            "127.0.0.1:9", "--interval", "0", "--samples", "2", "--timeout", "0.3",
        ]
        printed["ntp"] = try await Self.codesPrinted(by: ntp)

        let noDate = try HTTPTimeServer(configuration: HTTPTimeServer.Configuration(sendsDate: false))
        defer { noDate.stop() }
        let failing = try HTTPTimeServer(
            configuration: HTTPTimeServer.Configuration(misbehaviour: .internalServerError))
        defer { failing.stop() }
        printed["http"] = try await Self.codesPrinted(by: [
            "query", "--http-only", "--http", noDate.urlString, "--http", failing.urlString,
            "--http", "http://127.0.0.1:9/",
        ])

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netclock-codes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("anchor.json").path
        try HostileStateFile.symbolicLink.make(at: state, contents: "{}")
        printed["state"] = try await Self.codesPrinted(by: [
            "sync", "--state", state, "--http-only", "--http", noDate.urlString,
        ])

        let all = printed.values.flatMap { $0 }
        #expect(all.contains("timeout") && all.contains("kod") && all.contains("refused"), "\(printed)")
        #expect(all.contains("origin_mismatch"), "\(printed)")
        #expect(all.contains("missing_date_header") && all.contains("http_status"), "\(printed)")
        #expect(all.contains("transport") && all.contains("symbolic_link"), "\(printed)")
        for (mode, codes) in printed {
            for code in codes {
                #expect(Self.isSnakeCase(code), "\(mode): not snake_case: \(code)")
            }
        }
    }
}
