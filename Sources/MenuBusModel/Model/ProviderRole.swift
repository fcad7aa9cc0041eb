/// The system item a provider stands behind; a provider without a role
/// shows its own item.
public enum ProviderRole: String, CaseIterable, Hashable, Sendable {
    case lookup
    case translate
    case searchWeb = "search-web"
    case share

    /// The standard command whose item the provider performs.
    package var command: StandardCommand {
        switch self {
        case .lookup: .lookup
        case .translate: .translate
        case .searchWeb: .searchWeb
        case .share: .share
        }
    }
}
