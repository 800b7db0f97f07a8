extension StringProtocol {
    /// The text without the whitespace at either end: spaces, tabs and line breaks
    /// (`Character.isWhitespace`, Unicode's White_Space property).
    ///
    /// Foundation's `trimmingCharacters(in:)` needs its `CharacterSet`, which is not in
    /// FoundationEssentials; the shipping modules import only that (a statically linked `netclock`
    /// without Foundation's ICU data is a fifth of the size).
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
