import NetClockPlatform
import Testing

/// The machine's identity as `/etc/machine-id` holds it (machine-id(5)): what tells a state file
/// of an earlier boot of this machine from another machine's.
@Suite struct MachineIDTests {
    @Test(
        "only 32 lower-case hex digits, not all zero, are an identity",
        arguments: [
            ("3d1219c7c4c5404aaa1f6d2a48adfda4\n", "3d1219c7c4c5404aaa1f6d2a48adfda4"),
            ("3d1219c7c4c5404aaa1f6d2a48adfda4", "3d1219c7c4c5404aaa1f6d2a48adfda4"),
            ("  3d1219c7c4c5404aaa1f6d2a48adfda4  \n", "3d1219c7c4c5404aaa1f6d2a48adfda4"),
            ("3D1219C7C4C5404AAA1F6D2A48ADFDA4\n", nil), ("3d1219c7c4c5404aaa1f6d2a48adfda\n", nil),
            ("3d1219c7c4c5404aaa1f6d2a48adfda4a\n", nil), ("uninitialized\n", nil),
            ("00000000000000000000000000000000\n", nil), ("3d1219c7-c4c5-404a-aa1f-6d2a48adfda4\n", nil),
            ("", nil),
        ] as [(String, String?)])
    func parsing(text: String, expected: String?) {
        #expect(Syscalls.machineID(parsing: Array(text.utf8)) == expected)
    }
}
