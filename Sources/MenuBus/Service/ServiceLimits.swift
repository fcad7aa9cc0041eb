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
}
