import MenuBusModel
import MenuBusDBus
import MenuBusProtocol

/// The live presented menus MenuBusServer+Presentations.swift drives: each
/// by number, the numbers handed out, and the bytes each is charged
/// against its presenter's budget (MenuBusServer+Budgets.swift). A menu is
/// here from `PresentMenu` until it closes, and is charged only while here.
package final class LivePresentations {
    /// Live presented menus by number.
    package private(set) var byNumber: [UInt64: Presentation] = [:]
    /// Bytes each live presentation is charged.
    private var bytes: [UInt64: Int] = [:]
    /// The last number handed out; a number is never handed out twice.
    private var lastNumber: UInt64 = 0

    package subscript(number: UInt64) -> Presentation? { byNumber[number] }

    /// Refuses a presenter that holds `maxPresentationsPerPresenter` live menus.
    func checkRoom(for presenter: String) throws(BusError) {
        let held = byNumber.values.filter { $0.presenter == presenter }.count
        guard held < ServiceLimits.maxPresentationsPerPresenter else {
            throw BusError(.limitExceeded, "a presenter may hold at most \(ServiceLimits.maxPresentationsPerPresenter) live menus; dismiss some first")
        }
    }

    /// Adds the presentation `make` builds with the next number, charged `cost`.
    func add(cost: Int, _ make: (UInt64) -> Presentation) -> Presentation {
        lastNumber += 1
        let presentation = make(lastNumber)
        byNumber[presentation.number] = presentation
        bytes[presentation.number] = cost
        return presentation
    }

    /// What a live presentation is charged from now on.
    func charge(_ number: UInt64, _ cost: Int) {
        guard byNumber[number] != nil else { return }
        bytes[number] = cost
    }

    /// Takes a presentation out, with its charge; nil when it was not live.
    @discardableResult
    func remove(_ number: UInt64) -> Presentation? {
        bytes[number] = nil
        return byNumber.removeValue(forKey: number)
    }

    /// Bytes charged for the menus `uniqueName` presents.
    func bytes(presentedBy uniqueName: String) -> Int {
        byNumber.values.reduce(0) { $1.presenter == uniqueName ? $0 + (bytes[$1.number] ?? 0) : $0 }
    }

    /// Bytes charged for every live menu.
    var totalBytes: Int { bytes.values.reduce(0, +) }

    /// The live menus showing context `contextId` of `owner`.
    func showing(owner: String, contextId: String) -> [Presentation] {
        byNumber.values.filter { $0.owner == owner && $0.contextId == contextId }
    }
}
