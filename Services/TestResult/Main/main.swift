import ExposureCore
import TestResult

await CommandLineMain.run(TestResultCommand.self)
