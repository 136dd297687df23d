// The core is a superset of the pure rules: code that runs on the core (handlers, storage, commands) sees the
// rules' types without a second import, while a service's Domain target imports `ExposureRules` alone.
@_exported import ExposureRules
