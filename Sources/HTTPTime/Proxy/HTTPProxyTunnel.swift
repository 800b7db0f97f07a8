import NetClockPlatform
import TimeValues

extension HTTPExchangeRun {
    /// Asks `proxy`, connected on `connection`, for a tunnel to the URL's host and port (RFC 9110
    /// §9.3.6) and returns once a 2xx answer opened it; the TLS handshake with the origin follows.
    ///
    /// All of this happens before the send instant, so it never widens the bound. The answer must
    /// end where the tunnel begins: a byte after it, before our ClientHello, is refused.
    func openTunnel(through proxy: HTTPProxy, on connection: TCPConnection) throws(Stop) {
        let bytes = request.connectHead()
        var offset = 0
        while offset < bytes.count {
            let slice = try remainingForTunnel(proxy)
            do {
                offset += try connection.send(bytes[offset...], timeout: slice)
            } catch {
                if isAbandoned() { throw Stop(result: .cancelled) }
                throw Self.failure(
                    .proxyClosed, "sending CONNECT to the proxy \(proxy) failed: \(error)")
            }
        }
        let (head, _, extra) = try readHead(from: connection, sender: .tunnelProxy)
        let status = head.statusCode
        switch status {
        case 200..<300:
            guard extra == 0 else {
                throw Self.failure(
                    .proxyMalformedResponse,
                    "the proxy \(proxy) sent \(extra) bytes after its answer to CONNECT, before TLS began")
            }
        case 407, 401:
            // 401 is what tinyproxy answers to wrong credentials: to CONNECT, only the proxy speaks.
            let scheme =
                head.value(forField: "Proxy-Authenticate")?.split(separator: " ").first.map(String.init)
                ?? "no scheme"
            let shown = scheme.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } ? scheme.prefix(32) : "?"
            let what =
                proxy.hasCredentials
                ? "refused the credentials given" : "asks for credentials, and the proxy URL has none"
            throw Stop(
                result: .failed(
                    .proxyAuthenticationRequired,
                    "the proxy \(proxy) \(what) (HTTP \(status), Proxy-Authenticate: \(shown))"),
                statusCode: status)
        default:
            throw Stop(
                result: .failed(
                    .proxyRefused,
                    "the proxy \(proxy) refused a tunnel to \(request.authority): HTTP \(status)"),
                statusCode: status)
        }
    }

    /// Time left for the tunnel's next step, within the exchange's end.
    private func remainingForTunnel(_ proxy: HTTPProxy) throws(Stop) -> Duration {
        if isAbandoned() { throw Stop(result: .cancelled) }
        let now = client.clock.now()
        let left = end - now
        guard left > .zero else {
            throw Stop(
                result: .failed(
                    .timeout, "the proxy \(proxy) did not open the tunnel within \(timeout.formattedSeconds)"),
                noticed: now)
        }
        return min(left, HTTPHeadClient.slice)
    }
}
