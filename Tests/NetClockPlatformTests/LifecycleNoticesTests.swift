#if os(Linux)
    import NetClockPlatform
    import Testing

    /// The kernel's lifecycle notices below the facade: the rtnetlink parser on datagrams built by
    /// hand, the real `TFD_TIMER_CANCEL_ON_SET` timer's creation, and the meaning of its reads. The
    /// timer cannot be made to fire here: only a set of `CLOCK_REALTIME` (CAP_SYS_TIME, which the
    /// suite runs without, and which would change this machine's clock) or a resume does that, so
    /// its `ECANCELED` is an injected read result. A real rtnetlink event is the facade's test
    /// (`LifecycleNamespaceTests`), in a network namespace of its own.
    @Suite struct LifecycleNoticesTests {
        /// One netlink message: a 16-byte header (length, type, flags, sequence, port) and
        /// `payload` bytes, padded to 4 bytes.
        static func message(type: UInt16, payload: Int, length: UInt32? = nil) -> [UInt8] {
            let total = UInt32(16 + payload)
            var bytes: [UInt8] = []
            withUnsafeBytes(of: length ?? total) { bytes += $0 }
            withUnsafeBytes(of: type) { bytes += $0 }
            bytes += [UInt8](repeating: 0, count: 10 + payload)
            while bytes.count % 4 != 0 { bytes.append(0) }
            return bytes
        }

        static func changes(_ bytes: [UInt8]) -> Int {
            bytes.withUnsafeBytes { RouteChangeSocket.changeCount(in: $0) }
        }

        @Test func addressAndRouteMessagesAreChangesOthersAreNot() {
            // RTM_NEWADDR (20) with an unpadded 9-byte payload, RTM_NEWLINK (16), RTM_DELROUTE (25).
            let datagram =
                Self.message(type: 20, payload: 9) + Self.message(type: 16, payload: 8)
                + Self.message(type: 25, payload: 12)
            #expect(Self.changes(datagram) == 2)
            // RTM_DELADDR (21) and RTM_NEWROUTE (24) count; NLMSG_DONE (3) and RTM_NEWNEIGH (28) do not.
            #expect(
                Self.changes(Self.message(type: 21, payload: 0) + Self.message(type: 24, payload: 4)) == 2)
            #expect(Self.changes(Self.message(type: 3, payload: 4) + Self.message(type: 28, payload: 4)) == 0)
        }

        @Test func aMalformedMessageEndsTheCount() {
            let good = Self.message(type: 20, payload: 8)
            // A length past the end of the datagram, a length shorter than the header, a stub.
            #expect(Self.changes(good + Self.message(type: 24, payload: 4, length: 400)) == 1)
            #expect(Self.changes(Self.message(type: 24, payload: 4, length: 8) + good) == 0)
            #expect(Self.changes(good + [20, 0, 0, 0, 24, 0]) == 1)
            #expect(Self.changes([]) == 0)
        }

        @Test func theWallClockTimerIsArmedAndQuietUntilTheClockIsSet() throws {
            let timer = try WallClockSetTimer()
            #expect(timer.isArmed)
            // Nobody set the clock: a read finds nothing and leaves the timer armed.
            #expect(timer.take() == .nothing)
            #expect(timer.isArmed)
        }

        @Test func aCancelledReadIsASetOfTheWallClock() {
            #expect(WallClockSetTimer.outcome(ofRead: .failure(.canceled)) == .wallClockSet)
            #expect(WallClockSetTimer.outcome(ofRead: .failure(.wouldBlock)) == .nothing)
            #expect(WallClockSetTimer.outcome(ofRead: .success(0)) == .nothing)
            #expect(WallClockSetTimer.outcome(ofRead: .success(1)) == .expired)
            #expect(
                WallClockSetTimer.outcome(ofRead: .failure(.badFileDescriptor)) == .failed(.badFileDescriptor)
            )
        }

        @Test func aSignalWakesTheWait() throws {
            let notices = try LifecycleNotices()
            #expect(notices.unavailable.isEmpty, "\(notices.unavailable)")
            notices.signal()
            // A 10 s wait that the pending signal ends at once. (The host's own route changes may be
            // heard too: this socket is in the host's namespace, so routes are not asserted.)
            let started = ContinuousClock.now
            let found = try notices.wait(timeout: .seconds(10))
            #expect(ContinuousClock.now - started < .seconds(5), "the signal did not wake the wait")
            #expect(!found.wallClockSet)
        }
    }
#endif
