import Foundation
import XCTest
import MenuBusFuzzing

/// Every committed seed and finding (Fuzz/corpus/TARGET/, Fuzz/findings/TARGET/)
/// and every generated seed runs through its target's entry point, as
/// libFuzzer runs it, so a finding fixed once stays fixed without libFuzzer.
/// A regression traps (the fuzz invariants are traps, as libFuzzer wants),
/// which ends the test run and names the target in the crash.
final class FuzzRegressionTests: XCTestCase {
    private static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz").path

    func testEveryCommittedSeedAndFindingReplaysCleanly() throws {
        var counts: [String: Int] = [:]
        for target in FuzzTarget.allCases {
            for folder in ["corpus", "findings"] {
                let path = "\(Self.fuzzFolder)/\(folder)/\(target.rawValue)"
                guard FileManager.default.fileExists(atPath: path) else { continue }
                for file in FuzzReplay.inputs(path) {
                    let data = try XCTUnwrap(FileManager.default.contents(atPath: file), file)
                    target.run(Array(data))
                    counts[target.rawValue, default: 0] += 1
                }
            }
        }
        for target in FuzzTarget.allCases {
            XCTAssertGreaterThan(counts[target.rawValue] ?? 0, 0, "no committed seed for \(target.rawValue)")
        }
    }

    func testGeneratedSeedsReplayCleanly() {
        for target in FuzzTarget.allCases {
            let seeds = target.seeds
            XCTAssertFalse(seeds.isEmpty, "\(target.rawValue) has no seeds")
            seeds.forEach { target.run($0.bytes) }
        }
    }
}
