import SNTP

extension NTPSyncEngine {
    /// Told about the round and every request as it happens (see ``SyncProgress``); nil by default.
    /// Stored in the ``client``, which reports the requests.
    package var progress: SyncProgressObserver? {
        get { client.progress }
        set { client.progress = newValue }
    }
}

extension TimeSyncEngine {
    /// Told about the NTP round, every request, and each HTTP fallback URL as it starts and ends;
    /// nil by default.
    package var progress: SyncProgressObserver? {
        get { ntp.progress }
        set { ntp.progress = newValue }
    }
}
