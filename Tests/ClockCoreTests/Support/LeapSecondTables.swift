/// Leap-second tables for the tests, in the IERS/NIST `leap-seconds.list` format, never the
/// machine's own: tzdata 2025b's (expired on 2026-06-28, its comments left out: they are not
/// hashed), and tables valid until 2027-06-28 with an inserted, a deleted or no second at
/// 2027-01-01 (hashes computed with Python's hashlib).
enum LeapSecondTables {
    /// The data lines of tzdata 2025b (1972 to 2017).
    static let historical: [String] = [
        "2272060800      10      # 1 Jan 1972",
        "2287785600      11      # 1 Jul 1972",
        "2303683200      12      # 1 Jan 1973",
        "2335219200      13      # 1 Jan 1974",
        "2366755200      14      # 1 Jan 1975",
        "2398291200      15      # 1 Jan 1976",
        "2429913600      16      # 1 Jan 1977",
        "2461449600      17      # 1 Jan 1978",
        "2492985600      18      # 1 Jan 1979",
        "2524521600      19      # 1 Jan 1980",
        "2571782400      20      # 1 Jul 1981",
        "2603318400      21      # 1 Jul 1982",
        "2634854400      22      # 1 Jul 1983",
        "2698012800      23      # 1 Jul 1985",
        "2776982400      24      # 1 Jan 1988",
        "2840140800      25      # 1 Jan 1990",
        "2871676800      26      # 1 Jan 1991",
        "2918937600      27      # 1 Jul 1992",
        "2950473600      28      # 1 Jul 1993",
        "2982009600      29      # 1 Jul 1994",
        "3029443200      30      # 1 Jan 1996",
        "3076704000      31      # 1 Jul 1997",
        "3124137600      32      # 1 Jan 1999",
        "3345062400      33      # 1 Jan 2006",
        "3439756800      34      # 1 Jan 2009",
        "3550089600      35      # 1 Jul 2012",
        "3644697600      36      # 1 Jul 2015",
        "3692217600      37      # 1 Jan 2017",
    ]

    /// tzdata 2025b's table: updated July 2025, expired 2026-06-28 (`#h` as published).
    static let tzdata2025b =
        (["#\tleap-seconds.list, comments removed", "#$\t3960835200", "#@\t3991593600"] + historical
        + ["#h\t49db2447 571e5e1b 2f002a53 9c8da8e4 39b8e49e"]).joined(separator: "\n") + "\n"

    /// Valid until 2027-06-28, a second inserted at the end of 2026-12-31.
    static let insert2027 = valid(
        extra: ["4007750400\t38\t# 1 Jan 2027"], hash: "1fad59c7 ab290d04 a7445f44 47b156f8 ad21bfe6")

    /// Valid until 2027-06-28, a second deleted at the end of 2026-12-31.
    static let delete2027 = valid(
        extra: ["4007750400\t36\t# 1 Jan 2027"], hash: "4b99e3f2 bcdf81b2 993207a5 a3275a71 6bbc8141")

    /// Valid until 2027-06-28, no leap second since 2017 (its hash has a group with a leading
    /// zero dropped: `ae9c7fe`).
    static let none2027 = valid(extra: [], hash: "ae9c7fe a63be085 15bf660e 8fe336c2 69da28d8")

    /// 2027-01-01T00:00:00Z.
    static let midnight2027: Int64 = 1_798_761_600

    private static func valid(extra: [String], hash: String) -> String {
        (["#$\t3992284800", "#@\t4023129600"] + historical + extra + ["#h\t" + hash]).joined(separator: "\n")
            + "\n"
    }
}
