extension CodeStatusTexts {
    public static let french = CodeStatusTexts(
        navigation: "Mes codes",
        title: "Vos codes des 7 derniers jours",
        intro: "Si les téléTAN et codes que vous avez remis ont été utilisés. Les codes eux-mêmes ne sont jamais réaffichés : retrouvez-en un par son type et l’heure de son émission. Invalidez celui que vous avez lu à la mauvaise personne.",
        authorityTitle: "Les codes de votre autorité sanitaire des 7 derniers jours",
        authorityIntro: "Les téléTAN et codes de tous les agents de votre autorité sanitaire, et s’ils ont été utilisés.",
        showMine: "Seulement les miens",
        showAuthority: "Tous ceux de mon autorité",
        kindHeading: "Type",
        issuedHeading: "Émis",
        validUntilHeading: "Valable jusqu’à",
        statusHeading: "État",
        officerHeading: "Agent",
        actionHeading: "Action",
        unused: "Inutilisé",
        usedAt: "Utilisé, {hour}",
        expired: "Expiré",
        expireButton: "Invalider",
        expiredNotice: "Le code est invalidé : il ne peut plus être utilisé.",
        notLive: "Le code était déjà utilisé ou expiré ; rien n’a changé.",
        unknownCode: "Ce code n’est pas de ceux que vous pouvez voir.",
        nothing: "Aucun téléTAN ni code ces 7 derniers jours.",
        noRole: "Votre compte n'a aucun rôle permettant d'émettre des téléTAN ou des codes : il n'en a donc aucun à consulter. Demandez à votre superviseur le rôle nécessaire.",
        supervisorsOnly: "Seuls les superviseurs voient les codes de tous les agents de leur autorité. Vos propres codes sont sous Mes codes.",
        kinds: [
            "TEST": "téléTAN TEST",
            "EVENT": "téléTAN EVENT",
            "COVIDSHIELD": "code CovidShield",
            "PROTEGO": "PIN ProteGO Safe",
        ]
    )
}
