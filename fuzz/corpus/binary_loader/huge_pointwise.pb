
xinput *€€€€€€@
yexpxy