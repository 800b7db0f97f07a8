import Foundation
import Testing

@testable import NetclockCLI
@testable import NetworkClock

/// What `now` and `sync` say of a frequency carried from an earlier boot: `"carried": true` in the
/// `frequency` object (added to the contract; every other key as before) and the human line.
@Suite struct CarriedFrequencyOutputTests {
    /// After a reboot's first sync: +30 ppm carried, ± 20.926 ppm, one sync of this boot.
    static let carried = FrequencyEstimate(
        frequencyError: 30e-6, growthRate: 20.926e-6, halfWidthAtAnchor: 20.926e-6, isMeasured: true,
        isCarried: true, syncCount: 1, span: .zero, age: .seconds(2))

    @Test func theJSONSaysCarried() throws {
        let line = JSONOutput.line(FrequencyJSON(Self.carried))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["carried"] as? Bool == true && object["measured"] as? Bool == true)
        #expect(object["syncs"] as? Int == 1)
        let plain = JSONOutput.line(FrequencyJSON(JSONContractFixture.frequency))
        #expect(plain.contains("\"carried\":false"), "\(plain)")
    }

    @Test func theTextSaysWhereItCameFrom() {
        #expect(
            ReportText.frequency(Self.carried, reset: nil)
                == "frequency +30.000 ppm ± 20.926 (carried from an earlier boot; 1 sync):"
                + " the bound grows 20.926 ppm of the time offline")
        #expect(!ReportText.frequency(JSONContractFixture.frequency, reset: nil).contains("carried"))
    }
}
