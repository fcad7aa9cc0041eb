/// Every bound MenuBus puts on what a client sends, in one place.
///
/// A value over a bound is refused with `LimitExceeded` naming the field and
/// the bound; nothing is ever cut short to fit.
package enum Limits {
    /// Elements in one menu (`a(ssa{sv})`), counting every level.
    package static let maxElementsPerMenu = 1_000
    /// Bytes (UTF-8) of any one string: titles, subtitles, icons, shortcuts,
    /// content types, document ids.
    package static let maxStringBytes = 4_096
    /// Bytes of an element id (ids are ASCII, so also characters).
    static let maxIdBytes = 128
    /// Bytes of an app id (a bus-name-like reverse-DNS string): `Register`
    /// refuses longer ones, and so does the undo store.
    package static let maxAppIdBytes = 255
    /// Entries in `content-types` and in `pasteboard-types`.
    package static let maxContentTypes = 64
    /// Contexts one app connection may publish at once.
    package static let maxContextsPerApp = 256
    /// Entries in an element's `attributes` and in its `options`.
    package static let maxAttributesPerElement = 32
    /// Entries in one `a{sv}` dict (element properties, a context, a
    /// selection, a provider); unknown keys count too.
    package static let maxDictEntries = 64
    /// Entries in `supported-commands`.
    package static let maxSupportedCommands = 64
    /// Bytes of a selection's `text`. Larger than `maxStringBytes` because a
    /// selected paragraph is normal; longer selections leave `text` out and
    /// providers ask the app with `GetSelectedText`.
    package static let maxSelectionTextBytes = 65_536
    /// Bytes of a provider id: the composed element id
    /// `menubus:provider:<id>` must still fit in `maxIdBytes`.
    package static let maxProviderIdBytes = maxIdBytes - ElementID.providerPrefix.utf8.count
}
