#!/usr/bin/env bash
# One device call: cube maps and mipmapped textures on the GPU (docs/data/tex_probe/tex_mip_probe.cu:
# face selection, level of detail from tex2DLod/tex2DGrad, point and linear mipmap filters, bias,
# clamps, txq's level queries), every result's bits. Output in $OUT: h200_tex_mip_probe.txt (commit
# it as docs/data/tex_probe/h200_tex_mip_probe.txt; testbench/texture_mip_probe_test.cpp replays it),
# gpu.txt, stderr.txt and the texture instructions' SASS.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
nvcc --version | tail -2 >> $OUT/gpu.txt
cd docs/data/tex_probe
nvcc -O2 -arch=sm_90 -std=c++17 tex_mip_probe.cu -o /tmp/tex_mip_probe || exit 1
# Lazy loading: the kernel with txq.num_mipmap_levels cannot be loaded on driver 580 (see the
# probe's levelsKernel); eagerly loaded, the whole module would be refused.
CUDA_MODULE_LOADING=LAZY /tmp/tex_mip_probe > $OUT/h200_tex_mip_probe.txt 2> $OUT/stderr.txt
echo "exit $?" >> $OUT/stderr.txt
cuobjdump -sass /tmp/tex_mip_probe | grep -E "TEX|TLD|TXQ|TXD|Function|LDG" > $OUT/sass_tex.txt  # (LDG: txq.num_mipmap_levels reads the header)
cat $OUT/stderr.txt
grep -c -v "^#" $OUT/h200_tex_mip_probe.txt
tail -1 $OUT/h200_tex_mip_probe.txt
ls -la $OUT
