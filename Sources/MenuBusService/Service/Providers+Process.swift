import MenuBusModel
import MenuBusUndo
import MenuBusDBus
import MenuBusProtocol
import MenuBusSupport

extension Providers {
    /// `ProviderResult` on the menu's path, unicast to each listener: the
    /// answer of a provider that returns text for a context that is not
    /// editable (the text is ""  and `info` has `error` when it failed).
    func sendProviderResult(_ answer: ProviderAnswer, provider: ProviderInfo, app: App, contextId: String,
                            text: String, error: String? = nil) {
        var info: [DBusValue] = [WireValue.entry("context-id", .string(contextId)),
                                 WireValue.entry("app-id", .string(app.appId)),
                                 WireValue.entry("title", .string(provider.title))]
        if let error { info.append(WireValue.entry("error", .string(error))) }
        // The menu has usually closed (its object is gone) by the time the
        // answer comes: sent on its path all the same, as declared on `Menu`.
        for listener in answer.listeners {
            do {
                try connection.emitSignal(MenuBusAPI.Menu.providerResult, at: answer.menu,
                                          provider.id, text, .array("{sv}", info), destination: listener)
            } catch {
                Log.rateLimitedWarning("provider-result|\(listener)",
                                       "cannot send ProviderResult of \(provider.id) to \(listener): \(error)")
            }
        }
    }

    /// Text from the selection (or the owner's `GetSelectedText`) to the
    /// provider's `Process`; for an item that is not text (an image, a
    /// file), its URIs as a `text/uri-list`, or nothing, typed with the
    /// item's content type, never empty text typed as text (the context's
    /// `content-types` name all of them). Replacement text back to the owner when the
    /// context takes a replacement (`ContextInfo.takesReplacement`), with
    /// the choice's activation token and timestamp, else to `answer`'s
    /// listeners as `ProviderResult`.
    func runProvider(_ provider: RegisteredProvider, app: App, context: PublishedContext,
                     platformData: DBusValue = .array("{sv}", []), answer: ProviderAnswer? = nil) {
        // Only a provider that returns text, for a context the text cannot go into, answers the chooser.
        let answer = provider.info.returnsText && !context.info.takesReplacement ? answer : nil
        let contextId = context.id
        let isText = context.info.kind == .text
        let uris = context.selection.uris
        let uriList = isText ? context.selection.uriList(for: provider.info)
            : uris.isEmpty ? nil : uris.map { $0 + "\r\n" }.joined()
        let itemTypes = context.info.effectiveContentTypes
        let contentType = uriList != nil ? Selection.uriListType
            : isText ? "text/plain" : itemTypes.first ?? "application/octet-stream"
        let process: (String) -> Void = { [weak self] text in
            guard let self else { return }
            var contextValue = Wire.encode(context.info)
            if case .array(let signature, var entries) = contextValue {
                entries.append(.dictEntry(.string("app-id"), .variant(.string(app.appId))))
                entries.append(.dictEntry(.string("context-id"), .variant(.string(contextId))))
                entries += PlatformData.passed(platformData)
                entries.append(.dictEntry(.string("content-type"), .variant(.string(contentType))))
                contextValue = .array(signature, entries)
            }
            self.connection.call(MenuBusAPI.Provider.process, destination: provider.owner, path: provider.path,
                                 provider.info.id, text, contextValue,
                                 timeout: self.processTimeout(for: provider)) { [weak self] result in
                guard let self else { return }
                switch result {
                case .failure(let error) where error.name == BusError.Standard.invalidSignature:
                    Log.rateLimitedWarning("process-type|\(provider.owner)",
                                           "provider \(provider.info.id) answered Process with the wrong type")
                    if let answer {
                        self.sendProviderResult(answer, provider: provider.info, app: app, contextId: contextId, text: "",
                                                error: BusError.failed("the provider answered Process with the wrong type").summary)
                    }
                case .success(let (replacement, _)):
                    if let answer {
                        guard replacement.utf8.count <= Limits.maxSelectionTextBytes else {
                            Log.rateLimitedWarning("process-size|\(provider.owner)",
                                                   "provider \(provider.info.id) answered more than \(Limits.maxSelectionTextBytes) bytes; not passed on")
                            self.sendProviderResult(answer, provider: provider.info, app: app, contextId: contextId, text: "",
                                                    error: BusError.limitExceeded("the answer is more than \(Limits.maxSelectionTextBytes) bytes").summary)
                            return
                        }
                        self.sendProviderResult(answer, provider: provider.info, app: app, contextId: contextId, text: replacement)
                        return
                    }
                    guard !replacement.isEmpty, provider.info.returnsText,
                          let live = self.contexts.context(contextId, of: app.uniqueName), live.info.takesReplacement else { return }
                    // The user moved on while the provider worked (another
                    // selection, the caret elsewhere): putting the answer in
                    // place of what is selected now would replace other text.
                    guard sameContent(live.selection, context.selection) else {
                        Log.info("\(app.appId): the selection of \(contextId) changed while \(provider.info.id) worked; its answer is dropped")
                        return
                    }
                    // What the provider was given, when it was the selected text (not a URI list).
                    let replaces: [DBusValue] = uriList == nil ? [.dictEntry(.string("replaces"), .variant(.string(text)))] : []
                    app.callClient(self.connection, MenuBusAPI.Client.performCommand,
                        contextId, StandardCommand.replaceSelection.rawValue,
                        .array("{sv}", [.dictEntry(.string("text"), .variant(.string(replacement)))] + replaces
                                       + [.dictEntry(.string("provider"), .variant(.string(provider.info.id))),
                                          .dictEntry(.string("undo-name"), .variant(.string(provider.info.title)))]
                                       + PlatformData.passed(platformData)))
                case .failure(let error):
                    Log.rateLimitedWarning("process|\(provider.owner)|\(error.name)",
                                           "provider \(provider.info.id) Process failed: \(error.name)")
                    if let answer {
                        self.sendProviderResult(answer, provider: provider.info, app: app, contextId: contextId, text: "",
                                                error: error.summary)
                    }
                }
            }
        }
        if let text = uriList ?? context.selection.text {
            process(text)
            return
        }
        guard isText else { return process("") }
        app.callClient(connection, MenuBusAPI.Client.getSelectedText, contextId) { [weak self] result in
            guard case .success(let text) = result else {
                if let answer {
                    self?.sendProviderResult(answer, provider: provider.info, app: app, contextId: contextId, text: "",
                                             error: BusError.failed("\(app.appId) did not give its selected text").summary)
                }
                return
            }
            guard text.utf8.count <= Limits.maxSelectionTextBytes else {
                Log.rateLimitedWarning("selected-text-size|\(app.uniqueName)",
                                       "\(app.appId) GetSelectedText returned more than \(Limits.maxSelectionTextBytes) bytes; not sent to \(provider.info.id)")
                if let answer {
                    self?.sendProviderResult(answer, provider: provider.info, app: app, contextId: contextId, text: "",
                                             error: BusError.limitExceeded("the selected text is more than \(Limits.maxSelectionTextBytes) bytes").summary)
                }
                return
            }
            process(text)
        }
    }
}

/// The same content selected: kind, length, text and URIs (what a provider
/// was given), whatever else changed (focus, clipboard, rectangle).
private func sameContent(_ a: Selection, _ b: Selection) -> Bool {
    a.kind == b.kind && a.length == b.length && a.text == b.text && a.uris == b.uris
}

/// Where the answer of a provider chosen from a presented menu goes when
/// it cannot go into the app: the menu's path and the connections to tell.
extension BusError {
    /// "name: message", as `ProviderResult`'s `error` carries it.
    package var summary: String { "\(name): \(message)" }
}

package struct ProviderAnswer {
    package let menu: ObjectPath
    let listeners: [String]
}
