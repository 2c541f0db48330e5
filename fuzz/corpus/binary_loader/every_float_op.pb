
xinput *	
binput *	
u1negx
u2absu1
u3expx
u4logu2
u5tanhu4
u6erfu5
u7sqrtu2
u8rsqrtu3
u9sigmoidu6
u10reluu9
u11
reciprocalu8
v1addu10b
v2subv1u11
v3mulv2u7
v4divv3u3
v5maxv4b
v6minv5u1
v7powu2b
lltv6v7
yselectlv6v7y