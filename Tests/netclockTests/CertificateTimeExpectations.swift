import Foundation
import Testing

/// What the certificate-time tests read from a run's JSON and how they judge its time.
extension CertificateTimeScene.Run {
    /// The top-level `certificate_time`: a string, `NSNull` for null, nil when absent.
    func certificateTime() throws -> Any? { try json()["certificate_time"] }

    /// The `servers` entries.
    func servers() throws -> [[String: Any]] { (try json()["servers"] as? [[String: Any]]) ?? [] }

    /// The `servers` entry of the NTS server asked at `host` (`127.0.0.1:PORT` of its NTS-KE).
    func server(_ host: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let entries = try servers()
        return try #require(
            entries.first { $0["host"] as? String == host }, "no servers entry for \(host) in \(stdout)",
            sourceLocation: sourceLocation)
    }

    /// The `nts` object of `entry`.
    static func nts(_ entry: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [String: Any]
    {
        try #require(
            entry["nts"] as? [String: Any], "no nts object in \(entry)", sourceLocation: sourceLocation)
    }

    /// The only `http` entry.
    func httpEntry(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let entries = (try json()["http"] as? [[String: Any]]) ?? []
        try #require(entries.count == 1, "http entries: \(entries)", sourceLocation: sourceLocation)
        return entries[0]
    }

    /// Expects the result to be the true time: this machine's real clock, which every honest server
    /// here reads.
    ///
    /// The offset (true − wall) must lie within the result's own `error_bound` of
    /// ``WallClockShift/expectedOffset(spawnedAt:exitedAt:)`` (zero without a shift), plus 1 ms for
    /// pairing the boot-time clock with the wall clock (as NTSCLITests allows) and for chronyd and the
    /// client reading the same clock at different instants (InteropTests' shared-clock tolerance). The
    /// bound itself must be a loopback one, below 50 ms (HTTPSCLITests: HTTP refinement stops at
    /// 15 ms; NTP on loopback gives tens of µs), so the offset check cannot pass by a wide bound.
    func expectTrueTime(shift: WallClockShift?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let json = try json()
        let offset = try #require(
            json["offset"] as? Double, "no offset in \(stdout)", sourceLocation: sourceLocation)
        let bound = try #require(
            json["error_bound"] as? Double, "no error_bound in \(stdout)", sourceLocation: sourceLocation)
        expectOffset(offset, bound: bound, shift: shift, sourceLocation: sourceLocation)
        #expect(bound > 0 && bound < 0.05, "error_bound \(bound)", sourceLocation: sourceLocation)
    }

    /// Expects `offset` (true − wall, in seconds: the run's `offset`, or `set`'s `correction`) to
    /// lie within `bound` plus 1 ms of ``WallClockShift/expectedOffset(spawnedAt:exitedAt:)`` for
    /// this run (zero without a shift).
    func expectOffset(
        _ offset: Double, bound: Double, shift: WallClockShift?, _ what: String = "offset",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = shift?.expectedOffset(spawnedAt: spawnedAt, exitedAt: exitedAt) ?? 0...0
        let slack = bound + 0.001
        #expect(
            offset >= expected.lowerBound - slack && offset <= expected.upperBound + slack,
            "\(what) \(offset) ± \(bound), expected \(expected) (\(shift?.testDescription ?? "no shift"))",
            sourceLocation: sourceLocation)
    }
}
