extension CodeStatusTexts {
    public static let english = CodeStatusTexts(
        navigation: "My codes",
        title: "Your codes of the last 7 days",
        intro: "Whether the teleTANs and codes you gave out were used. The codes themselves are never shown again: find one by its kind and the time you issued it. Expire one you read to the wrong person.",
        authorityTitle: "Your health authority's codes of the last 7 days",
        authorityIntro: "Every officer's teleTANs and codes of your health authority, and whether they were used.",
        showMine: "Only mine",
        showAuthority: "All of my authority",
        kindHeading: "Kind",
        issuedHeading: "Issued",
        validUntilHeading: "Valid until",
        statusHeading: "Status",
        officerHeading: "Officer",
        actionHeading: "Action",
        unused: "Unused",
        usedAt: "Used, {hour}",
        expired: "Expired",
        expireButton: "Expire",
        expiredNotice: "The code is expired: it can no longer be used.",
        notLive: "The code was already used or had expired; nothing changed.",
        unknownCode: "That code is not one you may see.",
        nothing: "No teleTANs or codes in the last 7 days.",
        noRole: "Your account has no role that issues teleTANs or codes, so it has none to check. Ask your supervisor for the role you need.",
        supervisorsOnly: "Only supervisors see the codes of every officer of their authority. Your own codes are under My codes.",
        kinds: [
            "TEST": "TEST teleTAN",
            "EVENT": "EVENT teleTAN",
            "COVIDSHIELD": "CovidShield code",
            "PROTEGO": "ProteGO Safe PIN",
        ]
    )
}
