/// `attributes` and `options` are small sets of small enums: stored as one
/// byte each, so an element copies with fewer reference counts and a test
/// is a mask instead of a hash.
extension MenuElement {
    /// True when the element has `attribute` (no `Set` built).
    public func has(_ attribute: Attribute) -> Bool {
        attributeBits & attribute.bit != 0
    }

    /// True when the menu has `option` (no `Set` built).
    public func has(_ option: MenuOption) -> Bool {
        optionBits & option.bit != 0
    }

    /// Adds `option` in place.
    package mutating func insert(_ option: MenuOption) {
        optionBits |= option.bit
    }
}

extension MenuElement.Attribute: BitFlag {
    package var bit: UInt8 {
        switch self {
        case .destructive: 1
        case .disabled: 2
        case .hidden: 4
        case .keepsMenuPresented: 8
        }
    }
}

extension MenuElement.MenuOption: BitFlag {
    package var bit: UInt8 {
        switch self {
        case .inline: 1
        case .destructive: 2
        case .singleSelection: 4
        case .palette: 8
        }
    }
}

/// A case of a small option set kept as one bit of a byte.
package protocol BitFlag: CaseIterable, Hashable {
    var bit: UInt8 { get }
}

extension BitFlag {
    package static func bits(of set: Set<Self>) -> UInt8 {
        if set.isEmpty { return 0 }
        var bits: UInt8 = 0
        for member in set { bits |= member.bit }
        return bits
    }

    package static func set(from bits: UInt8) -> Set<Self> {
        guard bits != 0 else { return [] }
        return Set(allCases.filter { bits & $0.bit != 0 })
    }
}
