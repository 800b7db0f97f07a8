/// A cold start's majority rule: without trusted time a stolen key could set the time alone, so
/// when more than one configured source may decide, a majority of them (by name, not address) must
/// be among those that agree.
struct BootstrapMajority: Sendable {
    /// Every configured source by name, and whether it is of an authenticated kind (NTS).
    var configured: [String: Bool]
    /// Which configured sources may decide: under `require` only the authenticated kinds, under
    /// `prefer` only they once an authenticated source agrees.
    var mode: NetworkClock.NTSMode
    /// What the sources are called in the refusal ("servers", "URLs").
    var noun: String

    /// Nil when the agreeing candidates are a majority of the configured sources that may decide,
    /// else the refusal's reason.
    func refusal(agreeing: [Candidate]) -> String? {
        let onlyAuthenticated =
            mode == .require || (mode == .prefer && agreeing.contains(where: \.isAuthenticated))
        let deciding = configured.filter { !onlyAuthenticated || $0.value }.count
        guard deciding > 1 else { return nil }
        let distinct = Set(agreeing.map(\.name).filter { configured[$0] != nil }).count
        guard distinct * 2 <= deciding else { return nil }
        return "a cold start without trusted time needs a majority of the \(deciding) configured \(noun) to"
            + " agree, and \(distinct) \(distinct == 1 ? "does" : "do")"
    }
}
