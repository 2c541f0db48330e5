
xinput *€€€€€€ 
y
reduce_sumx:y