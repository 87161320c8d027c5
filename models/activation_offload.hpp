// Activation offloading to host memory: Megatron-Core's CPU offloading (cpu_offloading,
// cpu_offloading_num_layers) as Transformer Engine's DefaultOffloadSynchronizer runs it
// (NVIDIA/TransformerEngine transformer_engine/pytorch/cpu_offload.py at d0067d0d, the design since the
// activation-offloading refactor #1762 of 2025-11-14, TE 2.10):
//  * the first n of the block's L layers are offloaded (_init_offload_synchronization_dicts: "offload
//    layers 0, ..., num_offloaded_layers - 1");
//  * layer i's device-to-host copy is queued on one offload stream when layer i + 1's forward starts
//    (fwd_step -> start_offload of current_layer_id - 1), after the copies before it;
//  * the compute stream waits for it before layer L - n + i's forward (finish_offload_map,
//    release_activation_forward_gpu_memory waits for finish_offload_event) and frees the device copy;
//  * in the backward, layer i's reload is queued when layer L - 1 - n + i's backward starts
//    (start_reload_map; the offload stream first waits for the compute stream) and layer i's backward
//    waits for it (pop_tensor).
// So the device holds at most L - n layers' activations at any time ("peak memory usage of saving
// activations is (num_layers - num_offloaded_layers) * T"): the in-flight copies are counted within
// those L - n, the memory drops by the n offloaded layers' activations exactly.
#pragma once

#include "sim/core/units.hpp"

namespace clustersim {

/// One pass's offload timing: `exposed` = how much longer the pass takes than its compute because the
/// compute stream waited for a copy; `busy` = the offload stream's copy time in the pass (n · copy).
struct OffloadPassTime {
  Seconds exposed{0};
  Seconds busy{0};
};

/// Forward pass of `layers` layers taking `layer_forward` each, the first `offloaded` copied out at
/// `copy` each, one copy at a time, by the schedule above. 0 < offloaded < layers.
OffloadPassTime offload_forward_time(int layers, int offloaded, Seconds layer_forward, Seconds copy);

/// Backward pass (layers in reverse, `layer_backward` each): layer i's reload is queued when layer
/// layers - 1 - offloaded + i's backward starts, layer i's backward waits for it.
OffloadPassTime offload_backward_time(int layers, int offloaded, Seconds layer_backward, Seconds copy);

}  // namespace clustersim
