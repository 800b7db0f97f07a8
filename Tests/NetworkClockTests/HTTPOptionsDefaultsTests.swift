import HTTPTime
import Testing

@testable import NetworkClock

/// `NetworkClock.HTTPOptions` spells no default of its own: its initializer's defaults are the HTTP
/// time client's, and those are the public values documented since the options existed.
struct HTTPOptionsDefaultsTests {
    @Test func theOptionsDefaultsAreTheClientConfigurations() {
        let options = NetworkClock.HTTPOptions()
        let client = HTTPTimeClient.Configuration()
        #expect(options.configuration == client)
        #expect(options.maximumRequests == client.maximumRequests)
        #expect(options.timestampSamples == client.timestampSamples)
        #expect(options.targetErrorBound == client.targetErrorBound)
        #expect(options.requestTimeout == client.requestTimeout)
        #expect(options.deadline == client.deadline)
        #expect(options.minimumSpacing == client.minimumSpacing)
        #expect(options.maximumResponseHeadBytes == client.maximumResponseHeadBytes)
        #expect(options.timestampHeaderName == nil)
        #expect(options.proxy == .environment)
        let withHeader = NetworkClock.HTTPOptions(timestampHeader: "X-Server-Time-Ms")
        #expect(withHeader.configuration == HTTPTimeClient.Configuration(timestampHeader: "X-Server-Time-Ms"))
    }

    /// The public default values, as the documentation states them.
    @Test func thePublicDefaultValuesAreUnchanged() {
        let options = NetworkClock.HTTPOptions()
        #expect(options.maximumRequests == 8)
        #expect(options.timestampSamples == 8)
        #expect(options.targetErrorBound == .milliseconds(15))
        #expect(options.requestTimeout == .seconds(3))
        #expect(options.deadline == .seconds(10))
        #expect(options.minimumSpacing == .milliseconds(20))
        #expect(options.maximumResponseHeadBytes == 16_384)
        let withHeader = NetworkClock.HTTPOptions(timestampHeader: "X-Server-Time-Ms")
        #expect(withHeader.timestampHeader?.unit == .milliseconds)
        #expect(NetworkClock.HTTPOptions.defaultTimestampUnit == .milliseconds)
    }
}
