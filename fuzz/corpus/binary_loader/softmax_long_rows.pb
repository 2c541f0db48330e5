
xinput *€€
m
reduce_maxx:@
dsubxm
eexpd
s
reduce_sume:@
ydivesy