import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport
import Glibc

/// The trust model: any connection of the session may publish its own
/// contexts, read and present the menus of unsandboxed apps, and register
/// providers; only the presenter or the owning connection may choose from
/// a presented menu; selected text goes to a provider only for a choice of
/// the owner or of an unsandboxed presenter. A sandboxed app is known by the
/// id its sandbox gives it, may register only that id, and reaches only its
/// own contexts.
///
/// It keeps who each connection that called is, asked of the bus once
/// per connection and forgotten when it leaves.
final class Trust {
    private unowned let connection: Connection
    /// Who each connection that called is, by unique name.
    private var identities: [String: PeerIdentity] = [:]

    init(connection: Connection) {
        self.connection = connection
    }

    /// The connection left the bus: who it was is forgotten.
    func peerLeft(_ uniqueName: String) {
        identities[uniqueName] = nil
        identities.releaseSpareCapacity()
    }

    /// Who `uniqueName` is; asked of the bus once per connection.
    func identity(of uniqueName: String) -> PeerIdentity {
        if let known = identities[uniqueName] { return known }
        let identity: PeerIdentity
        do {
            identity = PeerIdentity.of(try connection.credentials(of: uniqueName))
        } catch let error as BusError {
            identity = .unidentified(reason: "the bus has no credentials for it: \(error.name)")
        } catch {
            identity = .unidentified(reason: "the bus has no credentials for it")
        }
        if !identity.isHost { Log.info("\(uniqueName) is \(identity.description)") }
        identities[uniqueName] = identity
        return identity
    }

    /// A sandboxed caller may register only its sandbox's id; an id a live
    /// sandboxed app holds (among `apps`) is not anyone else's to take.
    func checkRegistration(caller: String, appId: String, apps: Dictionary<String, App>.Values) throws {
        switch identity(of: caller) {
        case .sandboxed(let own, let sandbox):
            guard appId == own else {
                throw BusError(.accessDenied, "appId: this connection runs in a \(sandbox) sandbox as '\(own)' and may register only that id")
            }
        case .unidentified(let reason):
            throw BusError(.accessDenied, "appId: cannot tell which app this connection is: \(reason)")
        case .host:
            if let holder = apps.first(where: { $0.appId == appId && identity(of: $0.uniqueName).sandboxAppId == appId }) {
                throw BusError(.accessDenied, "appId: '\(appId)' is held by a sandboxed app (\(holder.uniqueName))")
            }
        }
    }

    /// Whether `caller` may read, present or choose from `owner`'s contexts:
    /// always for an unsandboxed caller; a sandboxed one only its own app's.
    func mayReach(caller: String, owner: String) -> Bool {
        if caller == owner { return true }
        switch identity(of: caller) {
        case .host: return true
        case .sandboxed(let own, _): return identity(of: owner).sandboxAppId == own
        case .unidentified: return false
        }
    }

    /// Refuses `caller` the context `contextId` of `owner` (app id `appId`) out of its reach.
    func checkReach(caller: String, owner: String, appId: String?, contextId: String) throws {
        guard mayReach(caller: caller, owner: owner) else {
            throw BusError(.accessDenied, "owner: a sandboxed app may reach only its own contexts, not '\(contextId)' of \(appId ?? owner)")
        }
    }

    /// Only an unsandboxed caller may have the focused app show its menu
    /// (`ShowMenuForFocus`): a sandboxed app may not pop a menu up in another.
    func checkFocusRequest(caller: String) throws {
        switch identity(of: caller) {
        case .host: return
        case .sandboxed(let own, let sandbox):
            throw BusError(.accessDenied, "this connection runs in a \(sandbox) sandbox as '\(own)'; only an unsandboxed caller may show the focused app's menu")
        case .unidentified(let reason):
            throw BusError(.accessDenied, "cannot tell which app this connection is (\(reason)); only an unsandboxed caller may show the focused app's menu")
        }
    }

    /// Only the presenter or the owner chooses; text goes to a provider only
    /// for the owner's app or an unsandboxed presenter.
    func checkChooser(_ presentation: Presentation, caller: String, sendsSelectedText: Bool) throws {
        guard caller == presentation.presenter || caller == presentation.owner else {
            throw BusError(.accessDenied, "only the connection that presented this menu, or the app that owns it, may choose from it")
        }
        if sendsSelectedText, !maySeeSelection(caller, owner: presentation.owner) {
            throw BusError(.accessDenied, "itemId: a sandboxed presenter may not send another app's selected text to a provider")
        }
    }

    /// Whether `uniqueName` may have `owner`'s selected text sent to a
    /// provider, or a provider's answer about it: the owner, an unsandboxed
    /// connection, or one in the owner's own sandbox.
    func maySeeSelection(_ uniqueName: String, owner: String) -> Bool {
        if uniqueName == owner { return true }
        let identity = identity(of: uniqueName)
        return identity.isHost || (identity.sandboxAppId != nil && identity == self.identity(of: owner))
    }

    /// A preview's `image-uri` names a file a presenter outside the sandbox
    /// opens: a sandboxed app may name only one it shared through the
    /// document portal (`/run/user/UID/doc/`), never a host path.
    func checkPreviewImage(_ preview: ContextPreview?, caller: String) throws {
        guard case .uri(let uri)? = preview?.image, !identity(of: caller).isHost else { return }
        let portal = "file:///run/user/\(getuid())/doc/"
        // An escaped dot or slash could spell ".." once the presenter unescapes it.
        let escapes = uri.lowercased()
        guard uri.hasPrefix(portal), !uri.split(separator: "/").contains(".."),
              !escapes.contains("%2e"), !escapes.contains("%2f") else {
            throw BusError(.accessDenied,
                "context.preview.image-uri: a sandboxed app may name only a file under \(portal) (the document portal); pass the picture as image-png instead")
        }
    }

    /// Among live registrations of an app id, a sandboxed one is the genuine
    /// app: an unsandboxed connection that claims its id is not preferred.
    func preferredRegistrations(_ candidates: [App]) -> [App] {
        let sandboxed = candidates.filter { identity(of: $0.uniqueName).sandboxAppId == $0.appId }
        return sandboxed.isEmpty ? candidates : sandboxed
    }
}
