import ClockCore
import NetClockPlatform
import NetClockTLS

/// Telling a file of an earlier boot of this machine from another machine's: its frequency is
/// carried across the reboot only on the same oscillator (the StateFiles article, "Formats").
extension AnchorStore {
    /// What the file keeps of the machine's identity: the SHA-256 of an application label and
    /// `machineID`, in hexadecimal, as machine-id(5) asks (the identity itself is not to be shown);
    /// nil if OpenSSL cannot hash.
    package static func machineTag(_ machineID: String) -> String? {
        let label = Array("netclock oscillator 1\u{0}".utf8)
        guard let digest = try? Digest.hash(.sha256, label, Array(machineID.utf8)) else { return nil }
        return NTSCookieFile.Hex.encode(digest)
    }

    /// ``machineTag(_:)`` of this machine, nil where its identity cannot be read.
    var currentMachineTag: String? { machineID().flatMap(Self.machineTag) }

    /// What `file` (valid, with `values`) knew of the frequency, if it was written in another
    /// boot of this machine (both machine tags known and equal) and knew anything; nil otherwise.
    func earlierBootFrequency(of file: AnchorFile, _ values: AnchorFile.Contents) -> EarlierBootFrequency? {
        guard let current = bootID(), file.bootID != current, let machine = file.machine,
            machine == currentMachineTag, !values.points.isEmpty || values.carried != nil
        else { return nil }
        return EarlierBootFrequency(points: values.points, carried: values.carried, bootID: file.bootID)
    }
}
