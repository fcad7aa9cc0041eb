/// Bounds the service puts on callers, beyond those of the menu model (`Limits`).
enum ServiceLimits {
    /// Live presentations one presenter connection may hold.
    static let maxPresentationsPerPresenter = 64
    /// Bytes of an app id (a bus-name-like reverse-DNS string).
    static let maxAppIdBytes = 255
    /// Entries in `Register`'s options and `Activate`'s platform data.
    static let maxOptionEntries = 64
    /// Seconds a call from the daemon to an app may take.
    static let clientCallTimeout: Double = 5
    /// Seconds a provider's `Process` may take.
    static let providerCallTimeout: Double = 10
    /// Providers one connection may register.
    static let maxProvidersPerConnection = 16
    /// Providers registered at once, daemon-wide: their items are in every
    /// matching menu, so this bounds a menu's size too.
    static let maxProviders = 128
    /// Undo documents daemon-wide (each app id has its own bound, but app
    /// ids are the callers' to choose).
    static let maxUndoDocuments = 2_048
}
