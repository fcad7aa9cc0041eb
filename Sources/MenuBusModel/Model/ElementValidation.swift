/// The rules of docs/API.md for a flat element list, and the bounds of `Limits`.
///
/// Ids are 1–128 bytes of `[A-Za-z0-9._:-]`, unique, and (from apps) never
/// `menubus:…`. A parent is `""` or the id of a `menu` earlier in the list,
/// which also rules out cycles. Actions and non-inline menus have titles;
/// `options` and `element-size` belong to menus, `cached` to deferred
/// elements. Fields are named as on the wire: `items[3].id`,
/// `items[2].properties.title`.
package enum ElementValidation {
    /// One fault and the index of the element it is in (nil for the list).
    package struct Problem: Hashable, Sendable {
        package let index: Int?
        package let error: ModelError
    }

    /// Throws the first fault of `elements`, if any.
    /// - Parameter allowReserved: accept `menubus:` ids (composed menus).
    package static func validate(_ elements: [MenuElement], field: String = "items",
                         allowReserved: Bool = false) throws(ModelError) {
        if let first = walk(elements, field: field, allowReserved: allowReserved,
                            rules: true, stopAtFirst: true).first {
            throw first.error
        }
    }

    /// `validate` for `elements` that have the ids, parents and kinds of
    /// `previous`, in the same order, where `previous` passed `validate`
    /// with the same `allowReserved`: then every rule between elements
    /// holds as it held there, and an element identical to its predecessor is
    /// as valid as it was, so only the others' strings and properties are
    /// checked (an app changing one label of a long menu). The first fault
    /// is the one `validate` would throw. Returns false, having checked
    /// nothing, when the structure differs; `validate` must run then.
    package static func validate(_ elements: [MenuElement], field: String = "items", sameShapeAs previous: [MenuElement])
        throws(ModelError) -> Bool {
        guard elements.count == previous.count else { return false }
        var changed: [Int] = []
        for index in elements.indices {
            let element = elements[index], before = previous[index]
            // Byte for byte: Swift's `==` holds another spelling of an id
            // ("K" and U+212A) equal, and ids are not checked again here.
            if element.isIdentical(to: before) { continue }
            guard element.id.utf8.elementsEqual(before.id.utf8), element.parent.utf8.elementsEqual(before.parent.utf8),
                  element.kind == before.kind else { return false }
            changed.append(index)
        }
        var walker = Walker(elements: elements, field: field, allowReserved: false, rules: true, stopAtFirst: true)
        for index in changed {
            walker.checkContent(at: index)
            if let first = walker.problems.first { throw first.error }
        }
        return true
    }

    /// Throws the first bound `elements` exceeds: element count, id and
    /// string lengths. For callers (Lint) that report rule faults themselves.
    package static func checkLimits(_ elements: [MenuElement], field: String = "items") throws(ModelError) {
        if let first = walk(elements, field: field, allowReserved: true,
                            rules: false, stopAtFirst: true).first {
            throw first.error
        }
    }

    /// Every fault of `elements`, in list order.
    package static func problems(in elements: [MenuElement], field: String = "items",
                         allowReserved: Bool = false) -> [Problem] {
        walk(elements, field: field, allowReserved: allowReserved, rules: true, stopAtFirst: false)
    }

    /// `title.allSatisfy(\.isWhitespace)`, answered from the first
    /// scalar when that is not whitespace (a character is whitespace by
    /// its first scalar), so a readable title costs no grapheme walk.
    static func isBlank(_ title: String) -> Bool {
        // ASCII other than space and the C0 whitespace is never whitespace.
        if let byte = title.utf8.first, byte < 0x80, byte != 0x20, !(0x09...0x0D).contains(byte) { return false }
        if let first = title.unicodeScalars.first, !first.properties.isWhitespace { return false }
        return title.allSatisfy(\.isWhitespace)
    }

    private static func walk(_ elements: [MenuElement], field: String, allowReserved: Bool,
                             rules: Bool, stopAtFirst: Bool) -> [Problem] {
        var walker = Walker(elements: elements, field: field, allowReserved: allowReserved,
                            rules: rules, stopAtFirst: stopAtFirst)
        walker.run()
        return walker.problems
    }

    /// Checks in a fixed order: the list, then each element's id, parent,
    /// and properties in wire-key order.
    private struct Walker {
        let elements: [MenuElement]
        let field: String
        let allowReserved: Bool
        /// False: only the bounds of `Limits`.
        let rules: Bool
        let stopAtFirst: Bool
        var problems: [Problem] = []
        var indexOfId: [String: Int] = [:]

        init(elements: [MenuElement], field: String, allowReserved: Bool, rules: Bool, stopAtFirst: Bool) {
            self.elements = elements
            self.field = field
            self.allowReserved = allowReserved
            self.rules = rules
            self.stopAtFirst = stopAtFirst
        }

        mutating func run() {
            if elements.count > Limits.maxElementsPerMenu {
                problems.append(Problem(index: nil, error: .limit(
                    field, "\(elements.count) elements are more than the limit of \(Limits.maxElementsPerMenu) per menu")))
                if stopAtFirst { return }
            }
            indexOfId.reserveCapacity(elements.count)
            for index in elements.indices {
                let before = problems.count
                check(at: index)
                if stopAtFirst && problems.count > before { return }
                if indexOfId[elements[index].id] == nil { indexOfId[elements[index].id] = index }
            }
        }

        /// Records `error`; true when the walk should stop.
        private mutating func record(_ error: ModelError, at index: Int) -> Bool {
            problems.append(Problem(index: index, error: error))
            return stopAtFirst
        }

        private func path(_ index: Int, _ key: String) -> String { "\(field)[\(index)].\(key)" }
        private func property(_ index: Int, _ key: String) -> String { "\(field)[\(index)].properties.\(key)" }

        private mutating func check(at index: Int) {
            let element = elements[index]
            if rules {
                if checkIdRules(element, at: index) { return }
                if checkParentRules(element, at: index) { return }
            } else {
                for (key, id) in [("id", element.id), ("parent", element.parent)] where id.utf8.count > Limits.maxIdBytes {
                    if record(.limit(path(index, key), "an id of \(id.utf8.count) bytes is longer than the limit of \(Limits.maxIdBytes) bytes"), at: index) { return }
                }
            }
            checkContent(at: index)
        }

        /// The checks of one element's strings and properties, in wire-key
        /// order (no list of them built per element).
        mutating func checkContent(at index: Int) {
            let element = elements[index]
            if checkLength(element.title, "title", at: index) { return }
            if checkLength(element.subtitle, "subtitle", at: index) { return }
            if checkLength(element.icon, "icon", at: index) { return }
            if checkLength(element.shortcut, "shortcut", at: index) { return }
            if rules { _ = checkPropertyRules(element, at: index) }
        }

        /// The bound of one string property; true when the walk should stop.
        private mutating func checkLength(_ value: String?, _ key: String, at index: Int) -> Bool {
            guard let value else { return false }
            do throws(ModelError) {
                try StringCheck.length(value, field: property(index, key))
            } catch {
                return record(error, at: index)
            }
            return false
        }

        private mutating func checkIdRules(_ element: MenuElement, at index: Int) -> Bool {
            do throws(ModelError) {
                try ElementID.check(element.id, field: path(index, "id"))
            } catch {
                if record(error, at: index) { return true }
            }
            if !allowReserved && ElementID.isReserved(element.id) {
                if record(.invalid(path(index, "id"), "id \(ModelError.quoted(element.id)) starts with '\(ElementID.reservedPrefix)', which is reserved for the elements MenuBus adds"), at: index) { return true }
            }
            if let earlier = indexOfId[element.id] {
                if record(.invalid(path(index, "id"), "id \(ModelError.quoted(element.id)) is already used by \(field)[\(earlier)]; ids must be unique in a menu"), at: index) { return true }
            }
            return false
        }

        private mutating func checkParentRules(_ element: MenuElement, at index: Int) -> Bool {
            guard !element.parent.isEmpty else { return false }
            let parentIndex = indexOfId[element.parent]
            // The common case, a menu earlier in the list, builds no message.
            if let parentIndex, elements[parentIndex].kind == .menu { return false }
            let field = path(index, "parent")
            let name = ModelError.quoted(element.parent)
            if let parentIndex {
                let parent = elements[parentIndex]
                let what = parent.kind == .action ? "an action" : "a deferred element"
                return record(.invalid(field, "parent \(name) (\(self.field)[\(parentIndex)]) is \(what); only a menu can hold elements"), at: index)
            }
            if element.parent == element.id {
                return record(.invalid(field, "element \(name) names itself as its parent"), at: index)
            }
            if let later = elements[(index + 1)...].firstIndex(where: { $0.id == element.parent }) {
                return record(.invalid(field, "parent \(name) comes later, at \(self.field)[\(later)]; parents must come before their children (which also rules out cycles)"), at: index)
            }
            return record(.invalid(field, "parent \(name) is not an element of this menu"), at: index)
        }

        private mutating func checkPropertyRules(_ element: MenuElement, at index: Int) -> Bool {
            if element.title == nil {
                if element.kind == .action {
                    if record(.invalid(property(index, "title"), "an action needs a title"), at: index) { return true }
                } else if element.isSubmenu {
                    if record(.invalid(property(index, "title"), "a menu that is not inline needs a title"), at: index) { return true }
                }
            } else if let title = element.title, element.kind == .action || element.isSubmenu,
                      ElementValidation.isBlank(title) {
                if record(.invalid(property(index, "title"), "the title is empty; a menu item people cannot read cannot be chosen, so give it a title"), at: index) { return true }
            }
            if let shortcut = element.shortcut {
                do throws(ModelError) {
                    try ShortcutSyntax.check(shortcut, field: property(index, "shortcut"))
                } catch {
                    if record(error, at: index) { return true }
                }
            }
            if element.kind != .menu {
                if element.optionBits != 0 {
                    if record(.invalid(property(index, "options"), "only a menu may have options; this element is \(element.kind.rawValue)"), at: index) { return true }
                }
                if element.elementSize != nil {
                    if record(.invalid(property(index, "element-size"), "only a menu may have an element size; this element is \(element.kind.rawValue)"), at: index) { return true }
                }
            }
            if element.kind != .deferred && !element.cached {
                if record(.invalid(property(index, "cached"), "only a deferred element may set cached; this element is \(element.kind.rawValue)"), at: index) { return true }
            }
            return false
        }
    }
}
