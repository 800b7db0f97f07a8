import ClockCore

extension SyncReport {
    /// What a sync's result did to the clock's anchor (``SyncReport/anchorUpdate``). See
    /// `ClockCore.AnchorUpdate`.
    public typealias AnchorUpdate = ClockCore.AnchorUpdate
}
