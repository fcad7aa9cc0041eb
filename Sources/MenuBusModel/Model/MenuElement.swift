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

    /// Unique in one menu: 1–128 bytes of `[A-Za-z0-9._:-]`.
    public var id: String
    /// The id of the enclosing `menu`, or `""` at the top.
    public var parent: String
    /// Action (default), menu or deferred.
    public var kind: Kind
    /// Required for an action and for a menu that is not inline.
    public var title: String?
    /// A second line under the title.
    public var subtitle: String?
    /// A freedesktop icon name such as `edit-copy`.
    public var icon: String?
    /// Destructive, disabled, hidden, keeps-menu-presented. Kept as bits
    /// (`has(_:)` tests one without building a set), so copying elements
    /// stays cheap when menus are composed.
    public var attributes: Set<Attribute> {
        get { Attribute.set(from: attributeBits) }
        set { attributeBits = Attribute.bits(of: newValue) }
    }
    /// Off (default), on or mixed.
    public var state: State
    /// GTK accelerator syntax, `<Control>c`.
    public var shortcut: String?
    /// The standard command this item performs, if any.
    public var command: StandardCommand?
    /// Only on a `menu`: inline, destructive, single-selection, palette.
    public var options: Set<MenuOption> {
        get { MenuOption.set(from: optionBits) }
        set { optionBits = MenuOption.bits(of: newValue) }
    }
    /// Only on a `menu`: the size of its children.
    public var elementSize: ElementSize?
    /// Only on a `deferred`: keep what the app provided for later presentations.
    public var cached: Bool
    /// `attributes`, one bit each.
    package var attributeBits: UInt8
    /// `options`, one bit each.
    package var optionBits: UInt8

    /// An element; every property but the id has the API's default.
    public init(
        id: String, parent: String = "", kind: Kind = .action,
        title: String? = nil, subtitle: String? = nil, icon: String? = nil,
        attributes: Set<Attribute> = [], state: State = .off, shortcut: String? = nil,
        command: StandardCommand? = nil, options: Set<MenuOption> = [],
        elementSize: ElementSize? = nil, cached: Bool = true
    ) {
        self.id = id
        self.parent = parent
        self.kind = kind
        self.title = title
        self.subtitle = subtitle
        self.icon = icon
        self.attributeBits = Attribute.bits(of: attributes)
        self.state = state
        self.shortcut = shortcut
        self.command = command
        self.optionBits = MenuOption.bits(of: options)
        self.elementSize = elementSize
        self.cached = cached
    }

    /// A `menu` drawn as a section of its parent.
    public var isSection: Bool { kind == .menu && has(.inline) }

    /// A `menu` drawn as a submenu (not inline).
    public var isSubmenu: Bool { kind == .menu && !has(.inline) }

    /// Marked destructive itself, or a menu whose children are destructive.
    public var isDestructive: Bool {
        has(Attribute.destructive) || (kind == .menu && has(MenuOption.destructive))
    }
}
