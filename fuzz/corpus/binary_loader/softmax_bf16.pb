
xinput *è
m
reduce_maxx:@
dsubxm
eexpd 
s
reduce_sume:
ÿÿÿÿÿÿÿÿÿ@
ydivesy