/// The registered providers that can work on one context, found once per
/// composition (content types parsed once, not per role).
package struct MatchingProviders {
    private let all: [ProviderInfo]
    /// Indices into `all` of the matching ones, in registration order.
    private let matching: [Int]

    package init(_ all: [ProviderInfo], context: ContextInfo) {
        self.init(all, contextTypes: ContentType.parse(context.effectiveContentTypes), editable: context.takesReplacement)
    }

    /// For a selection: one that carries URIs offers `text/uri-list` too.
    package init(_ all: [ProviderInfo], context: ContextInfo, selection: Selection) {
        self.init(all, contextTypes: selection.offeredContentTypes(ContentType.parse(context.effectiveContentTypes)),
                  editable: context.takesReplacement)
    }

    /// With the context's content types already parsed; `editable`: the
    /// selection may be replaced (`ContextInfo.takesReplacement`), which a
    /// provider that requires an editable context needs.
    package init(_ all: [ProviderInfo], contextTypes: [ContentType], editable: Bool) {
        self.all = all
        matching = all.indices.filter { all[$0].matches(contentTypes: contextTypes, editable: editable) }
    }

    /// The first matching provider with `role`.
    package func provider(for role: ProviderRole) -> ProviderInfo? {
        for index in matching where all[index].role == role { return all[index] }
        return nil
    }

    /// Each matching provider that shows an item of their own (no role), in
    /// order, without copying the list.
    func forEachOwnItem(_ body: (ProviderInfo) -> Void) {
        for index in matching where all[index].role == nil { body(all[index]) }
    }
}
