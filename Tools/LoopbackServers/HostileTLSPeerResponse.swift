import NTS
import NetClockPlatform
import SNTP
import TimeValues

/// The honest response a ``HostileTLSPeer`` sends after the handshake, when its script lets one
/// through (trickled, or cut after its first record).
enum HostileTLSPeerResponse {
    /// An HTTP/1.1 `200` with the server's `Date` and 1 KiB of padding before the end of the head
    /// (so that, trickled one byte every 20 ms, its record takes seconds to arrive); or an NTS-KE
    /// response with eight 100-byte cookies (NTPv4, AES-SIV-CMAC-256, port 123).
    static func bytes(for application: HostileTLSPeerScript.Application) -> [UInt8] {
        switch application {
        case .http:
            let date = HTTPTimeServerDateStyle.imfFixdate.format(
                UnixTime(sinceEpoch: Syscalls.clockTime(.realTime)))
            let padding = String(repeating: "a", count: 1024)
            return Array(
                ("HTTP/1.1 200 OK\r\nDate: \(date)\r\nX-Padding: \(padding)\r\nContent-Length: 0\r\n"
                    + "Connection: close\r\n\r\n").utf8)
        case .ntske:
            let cookies = (0..<8).map { index in [UInt8](repeating: UInt8(index), count: 100) }
            let records = (try? NTSKEResponse(cookies: cookies, port: 123).records()) ?? []
            return records.flatMap { $0.encoded() }
        }
    }
}
