import NetClockPlatform

/// A server as a user writes it (`NetClockPlatform`'s value, one grammar for every protocol). See
/// `ServerName.init(parsing:)`, below.
public typealias ServerName = NetClockPlatform.ServerName

extension ServerName {
    /// Parses `host`, `host:port`, `[v6addr]`, `[v6addr]:port`, or a bare IPv6 address (two or more
    /// colons, no port).
    /// - Throws: ``SNTPError`` with code ``SNTPError/Code/invalidServerName``, naming what is wrong.
    public init(parsing text: String) throws(SNTPError) {
        switch ServerName.parse(text) {
        case .success(let name): self = name
        case .failure(let invalid): throw SNTPError(code: .invalidServerName, reason: invalid.reason)
        }
    }
}
