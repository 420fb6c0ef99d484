package app

// Code generated from @lowdefy/build@4.0.0-rc.11 dist/defaultTypesMap.js; DO NOT EDIT.
// (tools/lowdefy-build-oracle: node -e ... over defaultTypesMap.js; the map literal is then
// wrapped in a lazy.Value, so that it is built on first use rather than at init)

import "github.com/mcpbridge/mcpbridge/internal/lazy"

// defaultTypes lists, per type class, the types the default Lowdefy plugins provide. It is
// built on first use.
var defaultTypes = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"actions":       {"CallMethod", "CopyToClipboard", "DisplayMessage", "DownloadCsv", "Fetch", "GeolocationCurrentPosition", "Link", "Login", "Logout", "PdfMake", "Request", "Reset", "ResetValidation", "ScrollTo", "SetGlobal", "SetState", "Throw", "UpdateSession", "Validate", "Wait"},
		"blocks":        {"Affix", "AgGridAlpine", "AgGridAlpineDark", "AgGridBalham", "AgGridBalhamDark", "AgGridInputAlpine", "AgGridInputAlpineDark", "AgGridInputBalham", "AgGridInputBalhamDark", "AgGridMaterial", "Alert", "Anchor", "AutoComplete", "Avatar", "Badge", "Box", "Breadcrumb", "Button", "ButtonSelector", "Card", "Carousel", "CheckboxSelector", "CheckboxSwitch", "Collapse", "ColorSelector", "Comment", "ConfirmModal", "Content", "ControlledList", "DangerousHtml", "DangerousMarkdown", "DateRangeSelector", "DateSelector", "DateTimeSelector", "Descriptions", "Divider", "DocSearch", "Drawer", "EChart", "Footer", "GoogleMaps", "GoogleMapsHeatmap", "GoogleMapsScript", "Header", "Html", "Icon", "Img", "Label", "Layout", "List", "Markdown", "MarkdownWithCode", "Menu", "Message", "MobileMenu", "Modal", "MonthSelector", "MultipleSelector", "Notification", "NumberInput", "PageHeaderMenu", "PageSiderMenu", "Pagination", "Paragraph", "ParagraphInput", "PasswordInput", "PhoneNumberInput", "Progress", "ProgressBar", "QRScanner", "RadioSelector", "RatingSlider", "Result", "S3UploadButton", "S3UploadPhoto", "Selector", "Sider", "Skeleton", "SkeletonAvatar", "SkeletonButton", "SkeletonInput", "SkeletonParagraph", "Span", "Spinner", "Statistic", "Switch", "Tabs", "Tag", "TextArea", "TextInput", "TimelineList", "Title", "TitleInput", "Tooltip", "WeekSelector"},
		"connections":   {"AwsS3Bucket", "AxiosHttp", "Elasticsearch", "GoogleSheet", "Knex", "MongoDBCollection", "Redis", "SendGridMail", "Stripe"},
		"requests":      {"AwsS3PresignedGetObject", "AwsS3PresignedPostPolicy", "AxiosHttp", "ElasticsearchDelete", "ElasticsearchDeleteByQuery", "ElasticsearchIndex", "ElasticsearchSearch", "ElasticsearchUpdate", "ElasticsearchUpdateByQuery", "GoogleSheetAppendMany", "GoogleSheetAppendOne", "GoogleSheetDeleteOne", "GoogleSheetGetMany", "GoogleSheetGetOne", "GoogleSheetUpdateMany", "GoogleSheetUpdateOne", "KnexBuilder", "KnexRaw", "MongoDBAggregation", "MongoDBDeleteMany", "MongoDBDeleteOne", "MongoDBFind", "MongoDBFindOne", "MongoDBInsertMany", "MongoDBInsertOne", "MongoDBUpdateMany", "MongoDBUpdateOne", "Redis", "SendGridMailSend", "StripeRequest"},
		"authAdapters":  {"MongoDBAdapter"},
		"authCallbacks": {"Auth0LogoutCallback"},
		"authEvents":    {},
		"authProviders": {"AppleProvider", "AtlassianProvider", "Auth0Provider", "AuthentikProvider", "AzureADB2CProvider", "AzureADProvider", "BattleNetProvider", "BoxProvider", "BoxyHQSAMLProvider", "BungieProvider", "CognitoProvider", "CoinbaseProvider", "DiscordProvider", "DropboxProvider", "EVEOnlineProvider", "FaceItProvider", "FacebookProvider", "FortyTwoProvider", "FourSquareProvider", "FreshbooksProvider", "FusionAuthProvider", "GitHubProvider", "GitlabProvider", "GoogleProvider", "HubspotProvider", "InstagramProvider", "KakaoProvider", "KeycloakProvider", "LineProvider", "LinkedInProvider", "MailRuProvider", "MailchimpProvider", "MediumProvider", "NaverProvider", "NetlifyProvider", "OktaProvider", "OneLoginProvider", "OpenIDConnectProvider", "OssoProvider", "OsuProvider", "PassageProvider", "PatreonProvider", "PinterestProvider", "PipedriveProvider", "RedditProvider", "SalesforceProvider", "SlackProvider", "SpotifyProvider", "StravaProvider", "TodoistProvider", "TraktProvider", "TwitchProvider", "TwitterProvider", "UnitedEffects", "VkProvider", "WikimediaProvider", "WordpressProvider", "WorkOSProvider", "YandexProvider", "ZitadelProvider", "ZohoProvider", "ZoomProvider"},
	}
}}
