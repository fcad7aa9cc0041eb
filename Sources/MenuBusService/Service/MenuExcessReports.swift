import MenuBusModel
import MenuBusSupport

/// An app's own menu past the size rules (`Lint.excess`: more than three
/// sections, more than fifteen items at one level) is served as the app
/// published it, since composition does not repair it, and logged: once
/// per app and context, rate-limited per app, so one app cannot fill the
/// log. `menubus-cli menu` shows the same findings.
///
/// Budget: at most `maxKeys` contexts remembered; when full, forgotten
/// all at once (a context may then be reported again).
final class MenuExcessReports {
    static let maxKeys = 1_024
    private struct Key: Hashable {
        let appId: String
        let contextId: String
    }

    /// The revision each context was last checked at.
    private var checked: [Key: UInt32] = [:]
    /// Contexts already reported.
    private var reported: Set<Key> = []

    /// Checks `items` of `contextId` once per revision and logs their excess
    /// the first time there is any.
    func check(appId: String, contextId: String, revision: UInt32, items: [MenuElement]) {
        // Four sections take four elements, sixteen items sixteen.
        guard items.count > 3 else { return }
        let key = Key(appId: appId, contextId: contextId)
        guard checked[key] != revision, !reported.contains(key) else { return }
        if checked.count >= Self.maxKeys { checked.removeAll() }
        checked[key] = revision
        let findings = Lint.excess(items)
        guard !findings.isEmpty else { return }
        if reported.count >= Self.maxKeys { reported.removeAll() }
        reported.insert(key)
        Log.rateLimitedWarning("menu-excess|\(appId)",
                               "\(appId) context '\(contextId)': \(findings.map(\.message).joined(separator: " ")) MenuBus serves the app's own items as published.")
    }
}
