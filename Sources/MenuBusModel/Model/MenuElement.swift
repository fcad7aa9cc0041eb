/// One element of a menu in its flat wire form: an action, a (sub)menu or
/// section, or a deferred element the app fills in later.
///
/// A menu is an array of these, parents before children, siblings in
/// display order; `parent` is `""` at the top.
public struct MenuElement: Hashable, Sendable {
    /// What an element is.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// An item that does something when chosen.
        case action
        /// A submenu, or with the `inline` option a section.
        case menu
        /// A placeholder the app fills with `ProvideElements`.
        case deferred
    }

    /// How an element looks and behaves.
    public enum Attribute: String, CaseIterable, Hashable, Sendable {
        case destructive
        case disabled
        case hidden
        /// Choosing the item does not close the menu.
        case keepsMenuPresented = "keeps-menu-presented"
    }

    /// A checkmark state.
    public enum State: String, CaseIterable, Hashable, Sendable {
        case off, on, mixed
    }

    /// How a `menu` element shows its children.
    public enum MenuOption: String, CaseIterable, Hashable, Sendable {
        /// A section drawn between separators instead of a submenu.
        case inline
        /// The children are destructive.
        case destructive
        /// At most one child is `on`.
        case singleSelection = "single-selection"
        /// The children are drawn as a row of icons.
        case palette
    }

    /// The size of a `menu`'s children.
    public enum ElementSize: String, CaseIterable, Hashable, Sendable {
        case small, medium, large
    }

    /// The stored fields, compared and hashed as a whole.
    private struct Fields: Hashable {
        var id: String
        var parent: String
        var kind: Kind
        var title: String?
        var subtitle: String?
        var icon: String?
        var state: State
        var shortcut: String?
        var command: StandardCommand?
        var elementSize: ElementSize?
        var cached: Bool
        var attributeBits: UInt8
        var optionBits: UInt8
    }

    /// The fields, shared between copies until one of them changes (as an
    /// array's buffer is): composing, validating and mapping a menu copy
    /// elements many times, and a copy is then one reference count instead
    /// of one per string.
    private final class Storage: @unchecked Sendable {
        // Mutated only through `MenuElement`'s setters, once the storage is
        // uniquely referenced: never while another copy can read it.
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var storage: Storage

    /// The storage, copied first if another element shares it.
    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            return storage
        }
    }

    /// Unique in one menu: 1–128 bytes of `[A-Za-z0-9._:-]`.
    public var id: String { get { storage.fields.id } set { unique.fields.id = newValue } }
    /// The id of the enclosing `menu`, or `""` at the top.
    public var parent: String { get { storage.fields.parent } set { unique.fields.parent = newValue } }
    /// Action (default), menu or deferred.
    public var kind: Kind { get { storage.fields.kind } set { unique.fields.kind = newValue } }
    /// Required for an action and for a menu that is not inline.
    public var title: String? { get { storage.fields.title } set { unique.fields.title = newValue } }
    /// A second line under the title.
    public var subtitle: String? { get { storage.fields.subtitle } set { unique.fields.subtitle = newValue } }
    /// A freedesktop icon name such as `edit-copy`.
    public var icon: String? { get { storage.fields.icon } set { unique.fields.icon = newValue } }
    /// Destructive, disabled, hidden, keeps-menu-presented. Kept as bits
    /// (`has(_:)` tests one without building a set).
    public var attributes: Set<Attribute> {
        get { Attribute.set(from: attributeBits) }
        set { attributeBits = Attribute.bits(of: newValue) }
    }
    /// Off (default), on or mixed.
    public var state: State { get { storage.fields.state } set { unique.fields.state = newValue } }
    /// GTK accelerator syntax, `<Control>c`.
    public var shortcut: String? { get { storage.fields.shortcut } set { unique.fields.shortcut = newValue } }
    /// The standard command this item performs, if any.
    public var command: StandardCommand? { get { storage.fields.command } set { unique.fields.command = newValue } }
    /// Only on a `menu`: inline, destructive, single-selection, palette.
    public var options: Set<MenuOption> {
        get { MenuOption.set(from: optionBits) }
        set { optionBits = MenuOption.bits(of: newValue) }
    }
    /// Only on a `menu`: the size of its children.
    public var elementSize: ElementSize? { get { storage.fields.elementSize } set { unique.fields.elementSize = newValue } }
    /// Only on a `deferred`: keep what the app provided for later presentations.
    public var cached: Bool { get { storage.fields.cached } set { unique.fields.cached = newValue } }
    /// `attributes`, one bit each.
    package var attributeBits: UInt8 { get { storage.fields.attributeBits } set { unique.fields.attributeBits = newValue } }
    /// `options`, one bit each.
    package var optionBits: UInt8 { get { storage.fields.optionBits } set { unique.fields.optionBits = newValue } }

    /// An element; every property but the id has the API's default.
    public init(
        id: String, parent: String = "", kind: Kind = .action,
        title: String? = nil, subtitle: String? = nil, icon: String? = nil,
        attributes: Set<Attribute> = [], state: State = .off, shortcut: String? = nil,
        command: StandardCommand? = nil, options: Set<MenuOption> = [],
        elementSize: ElementSize? = nil, cached: Bool = true
    ) {
        storage = Storage(Fields(id: id, parent: parent, kind: kind, title: title, subtitle: subtitle, icon: icon,
                                 state: state, shortcut: shortcut, command: command, elementSize: elementSize,
                                 cached: cached, attributeBits: Attribute.bits(of: attributes),
                                 optionBits: MenuOption.bits(of: options)))
    }

    /// Whether the two are one stored element (copies share their storage
    /// until one is changed): what a read reusing a held list gives.
    package func sharesStorage(with other: MenuElement) -> Bool {
        storage === other.storage
    }

    /// Equal, and every string the same bytes. Swift's `==` holds
    /// canonically equivalent strings equal ("K" and U+212A KELVIN SIGN),
    /// but a rule on bytes (an id's characters, a length bound) tells them
    /// apart.
    package func isIdentical(to other: MenuElement) -> Bool {
        if storage === other.storage { return true }
        guard self == other else { return false }
        let mine = storage.fields, theirs = other.storage.fields
        func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (a?, b?): a.utf8.elementsEqual(b.utf8)
            default: false
            }
        }
        return same(mine.id, theirs.id) && same(mine.parent, theirs.parent) && same(mine.title, theirs.title)
            && same(mine.subtitle, theirs.subtitle) && same(mine.icon, theirs.icon) && same(mine.shortcut, theirs.shortcut)
    }

    public static func == (lhs: MenuElement, rhs: MenuElement) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }
}

extension MenuElement: CustomReflectable {
    /// The fields, as the element printed before they moved into shared
    /// storage (`print`, `dump`, test failure messages).
    public var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: storage.fields).children, displayStyle: .struct)
    }
}

extension MenuElement {
    /// A `menu` drawn as a section of its parent.
    public var isSection: Bool { kind == .menu && has(.inline) }

    /// A `menu` drawn as a submenu (not inline).
    public var isSubmenu: Bool { kind == .menu && !has(.inline) }

    /// Marked destructive itself, or a menu whose children are destructive.
    public var isDestructive: Bool {
        has(Attribute.destructive) || (kind == .menu && has(MenuOption.destructive))
    }
}
