/// The replies an exchange refused: how many, and the reasons of the first few (a flood of bad
/// datagrams cannot grow it without bound).
package struct RoughtimeRejections: Hashable, Sendable, CustomStringConvertible {
    /// How many reasons are kept.
    package static let kept = 4

    /// How many replies were refused.
    package private(set) var count = 0
    /// The reasons of the first ``kept`` refused replies, in order.
    package private(set) var first: [RoughtimeError] = []

    /// No rejections.
    package init() {}

    /// Records one refused reply.
    package mutating func record(_ reason: RoughtimeError) {
        count += 1
        if first.count < Self.kept { first.append(reason) }
    }

    /// Adds `other`'s rejections (its count, and its reasons while there is room).
    package mutating func merge(_ other: RoughtimeRejections) {
        count += other.count
        first += other.first.prefix(Self.kept - first.count)
    }

    /// `none`, or the count and the first reasons, e.g. `2 refused: nonce_mismatch: …; …`.
    package var description: String {
        count == 0 ? "none" : "\(count) refused: " + first.map(\.description).joined(separator: "; ")
    }
}
