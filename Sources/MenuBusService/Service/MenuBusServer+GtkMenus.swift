import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol

/// `org.gtk.Menus` and `org.gtk.Actions` on a presentation's path: GLib's
/// `GDBusMenuModel` and `GDBusActionGroup` read them, so a GTK app renders
/// a presented menu with a stock `GtkMenu` or `GtkPopoverMenu` after
/// inserting the action group under the prefix `menubus`.
extension MenuBusServer {
    package func gtkMenusInterface(_ number: UInt64) -> Interface {
        var menus = Interface(MenuBusNames.gtkMenusInterface)
        menus.method("Start", in: [arg("groups", [UInt32].self)],
                     out: [arg("content", signature: "a(uuaa{sv})")]) { [unowned self] call in
            let state = try self.exported(number)
            let groups: [UInt32] = try call.argument(0)
            // Counted per group and subscriber, as GLib's exporter does;
            // groups never handed out are ignored (numbered once mapped).
            let export = state.gtkExport()
            for group in groups where state.ids.isAllocated(group: group) && !state.isClosing {
                state.subscribe(call.sender, to: group)
            }
            if !groups.isEmpty { self.consumerOpened(number) }
            if let cached = state.startReplies[groups] {
                call.reply(with: cached)
                return []
            }
            let prepared = try PreparedReply([export.startRows(groups)])
            state.cacheStart(prepared, for: groups)
            call.reply(with: prepared)
            return []
        }
        menus.method("End", in: [arg("groups", [UInt32].self)]) { [unowned self] call in
            guard let state = self.exports[number] else { return [] }
            let groups: [UInt32] = try call.argument(0)
            let held = !state.hasNoSubscribers
            for group in groups { state.unsubscribe(call.sender, from: group) }
            // The last subscriber let go: the consumer closed the menu.
            if held, state.hasNoSubscribers { self.consumerClosed(number) }
            return []
        }
        menus.signal("Changed", [arg("changes", signature: "a(uuuuaa{sv})")])
        return menus
    }

    package func gtkActionsInterface(_ number: UInt64) -> Interface {
        var actions = Interface(MenuBusNames.gtkActionsInterface)
        actions.method("List", out: [arg("list", [String].self)]) { [unowned self] _ in
            let state = try self.exported(number)
            return [state.gtkExport().actions.list]
        }
        actions.method("Describe", in: [arg("action_name", String.self)],
                       out: [arg("description", signature: "(bgav)")]) { [unowned self] call in
            let state = try self.exported(number)
            let name: String = try call.argument(0)
            guard let action = state.gtkExport().actions.action(name) else {
                throw BusError.invalidArgs("action_name: this menu has no action '\(name)'")
            }
            return [action.description]
        }
        actions.method("DescribeAll", out: [arg("descriptions", signature: "a{s(bgav)}")]) { [unowned self] _ in
            let state = try self.exported(number)
            return [state.gtkExport().actions.describeAll]
        }
        actions.method("Activate", in: [arg("action_name", String.self), arg("parameter", [DBusValue].self),
                                         arg("platform_data", [String: DBusValue].self)]) { [unowned self] call in
            let state = try self.exported(number)
            let name: String = try call.argument(0)
            let parameters: [DBusValue] = try call.argument(1)
            let itemId: String
            do {
                itemId = try state.gtkExport().actions.activation(name, parameters: parameters)
            } catch let refusal as GtkActions.Refusal {
                throw BusError.invalidArgs(refusal.message)
            }
            try self.activate(self.livePresentation(number), caller: call.sender, itemId: itemId, platformData: call.arguments[2])
            return []
        }
        actions.method("SetState", in: [arg("action_name", String.self), arg("value", DBusValue.self),
                                         arg("platform_data", [String: DBusValue].self)]) { [unowned self] call in
            let state = try self.exported(number)
            let name: String = try call.argument(0)
            let value: DBusValue = try call.argument(1)
            let itemId: String?
            do {
                itemId = try state.gtkExport().actions.stateChange(name, to: value)
            } catch let refusal as GtkActions.Refusal {
                throw BusError.invalidArgs(refusal.message)
            }
            if let itemId {
                try self.activate(self.livePresentation(number), caller: call.sender, itemId: itemId, platformData: call.arguments[2])
            }
            return []
        }
        actions.signal("Changed", [arg("removals", [String].self), arg("enable_changes", [String: Bool].self),
                                   arg("state_changes", [String: DBusValue].self),
                                   arg("additions", signature: "a{s(bgav)}")])
        return actions
    }
}
