import SNTP

/// The servers NetworkClock uses when none are configured.
///
/// `pool.ntp.org` resolves to several volunteer servers near the client, none of which smear leap
/// seconds, so their answers can be combined (mixing smearing servers such as Google's with
/// non-smearing ones would make them disagree by up to 0.5 s around a leap second). One pool name
/// gives four addresses per lookup, enough for a majority vote. Products shipping to many devices
/// should register their own vendor zone with the pool project and configure it instead.
package enum DefaultServers {
    /// `pool.ntp.org`.
    package static let names: [ServerName] = [ServerName(host: "pool.ntp.org")]
}
