//go:build amd64 && !purego

#include "textflag.h"

// func dotAVX2(a, b []float32) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop32:
	CMPQ CX, $32
	JL   loop8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JL   reduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  loop8

reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

tail:
	CMPQ CX, $0
	JE   done
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  tail

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func prefetch(b []int8)
// Asks the CPU to bring every cache line of b into L1 ahead of use.
TEXT ·prefetch(SB), NOSPLIT, $0-24
	MOVQ b_base+0(FP), AX
	MOVQ b_len+8(FP), CX
	ADDQ AX, CX

ploop:
	CMPQ AX, CX
	JAE  pdone
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP  ploop

pdone:
	RET

// func dotI8AVX2(a, b []int8) int32
// Sign-extends 16 bytes at a time to int16 and sums the products of pairs
// into int32 lanes (VPMADDWD); no lane can overflow below 65536 dimensions.
TEXT ·dotI8AVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5

i8loop32:
	CMPQ CX, $32
	JL   i8loop16
	VPMOVSXBW (SI), Y0
	VPMOVSXBW (DI), Y1
	VPMADDWD Y1, Y0, Y0
	VPADDD Y0, Y4, Y4
	VPMOVSXBW 16(SI), Y2
	VPMOVSXBW 16(DI), Y3
	VPMADDWD Y3, Y2, Y2
	VPADDD Y2, Y5, Y5
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  i8loop32

i8loop16:
	CMPQ CX, $16
	JL   i8reduce
	VPMOVSXBW (SI), Y0
	VPMOVSXBW (DI), Y1
	VPMADDWD Y1, Y0, Y0
	VPADDD Y0, Y4, Y4
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $16, CX

i8reduce:
	VPADDD Y5, Y4, Y4
	VEXTRACTI128 $1, Y4, X5
	VPADDD X5, X4, X4
	VPHADDD X4, X4, X4
	VPHADDD X4, X4, X4
	VMOVD X4, AX

i8tail:
	CMPQ CX, $0
	JE   i8done
	MOVBQSX (SI), R8
	MOVBQSX (DI), R9
	IMULQ R9, R8
	ADDL R8, AX
	INCQ SI
	INCQ DI
	DECQ CX
	JMP  i8tail

i8done:
	VZEROUPPER
	MOVL AX, ret+48(FP)
	RET
