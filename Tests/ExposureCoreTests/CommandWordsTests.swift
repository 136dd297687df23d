import ExposureCore
import Testing

@Suite struct CommandWordsTests {
    @Test func positionalWordsLeaveFlagsAndTheirValuesOut() {
        #expect(["add", "anna", "--roles", "c19hotline", "--force=yes"].positional == ["add", "anna"])
    }

    @Test func aFlagIsReadFromTheCommandsOwnWords() {
        #expect(["audit", "--limit", "5"].flag("limit") == "5")
        #expect(["audit", "--limit=7", "--limit", "9"].flag("limit") == "9")
        #expect(["audit", "--limit="].flag("limit") == "")
        #expect(["audit", "--limits", "5"].flag("limit") == nil)
        #expect(["audit", "--limit"].flag("limit") == nil)
        #expect(["audit"].flag("limit") == nil)
    }
}
