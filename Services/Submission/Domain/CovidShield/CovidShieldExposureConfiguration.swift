/// The ENExposureConfiguration a CovidShield app asks for (`GET /exposure-configuration/{region}.json`): the
/// reference's fixed default, which an operator replaces with a file of their own
/// (`COVIDSHIELD_EXPOSURE_CONFIGURATION_FILE`).
public enum CovidShieldExposureConfiguration {
    public static let defaultJSON = """
        {"minimumRiskScore":0,"attenuationLevelValues":[1,2,3,4,5,6,7,8],"attenuationWeight":50,\
        "daysSinceLastExposureLevelValues":[1,2,3,4,5,6,7,8],"daysSinceLastExposureWeight":50,\
        "durationLevelValues":[1,2,3,4,5,6,7,8],"durationWeight":50,\
        "transmissionRiskLevelValues":[1,2,3,4,5,6,7,8],"transmissionRiskWeight":50}

        """
}
