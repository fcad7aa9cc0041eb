import MenuBusModel
import MenuBusDBus

/// What an activation's `platformData` carries on.
enum PlatformData {
    /// Keys of an activation's `platformData` that reach `PerformCommand`
    /// and a provider's `Process` too, so the app or provider can raise its
    /// window under Wayland's focus rules (an xdg-activation token) or order
    /// events. Strings are bounded as every string MenuBus takes.
    static let passedKeys: Set<String> = ["activation-token", "timestamp"]

    /// The entries of `platformData` (already bounded by its entry count)
    /// under `passedKeys`, a string one only within `Limits.maxStringBytes`.
    static func passed(_ platformData: DBusValue) -> [DBusValue] {
        guard case .array(_, let entries) = platformData else { return [] }
        return entries.filter { entry in
            guard case .dictEntry(.string(let key), let value) = entry, passedKeys.contains(key) else { return false }
            if case .variant(.string(let text)) = value { return text.utf8.count <= Limits.maxStringBytes }
            return true
        }
    }

    /// `platformData` for an activation that came through another protocol.
    static func exported(_ entries: [(String, DBusValue)]) -> DBusValue {
        .array("{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }
}
