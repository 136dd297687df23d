import ExposureCore

await CommandLineMain.run(SuiteCommand.self)
