import MenuBusModel
import MenuBusCodec
import MenuBusSupport

/// The titles the installed key files declare, translated for a locale: a
/// provider that ships a key file registers under the same title the
/// daemon offered while it was not running (`Title[ru]=` for a Russian
/// session), rather than the English one compiled into it.
package enum DeclaredTitles {
    /// Provider id to title, from the key files `environment`'s XDG folders
    /// hold, translated for `environment`'s locale (`LANGUAGE`, `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`), as menubusd reads them.
    package static func read(environment: [String: String] = Files.environment()) -> [String: String] {
        let catalog = ProviderCatalog(environment: environment)
        catalog.reload()
        var titles: [String: String] = [:]
        for declaration in catalog.declarations where titles[declaration.info.id] == nil {
            titles[declaration.info.id] = declaration.info.title
        }
        return titles
    }
}
