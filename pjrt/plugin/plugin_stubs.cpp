// The functions the plugin leaves unimplemented, grouped by why.
#include "pjrt/plugin/plugin_stubs.h"

#include "pjrt/plugin/plugin_errors.h"

namespace meshtest::pjrt::plugin {

#define MESHTEST_PJRT_UNIMPLEMENTED(Name) \
  api.Name = [](Name##_Args*) -> PJRT_Error* { return unimplemented(#Name); }

void bind_unimplemented_api(PJRT_Api& api) {
  // Memory spaces: a simulated chip has one memory, its DRAM; buffers name their device.
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_AddressableMemories);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Device_AddressableMemories);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Device_DefaultMemory);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Memory_Id);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Memory_Kind);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Memory_Kind_Id);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Memory_DebugString);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Memory_ToString);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Memory_AddressableByDevices);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_Memory);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_CopyToMemory);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_OutputMemoryKinds);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_ParameterMemoryKinds);

  // Serialized executables and ahead-of-time compilation: the plugin compiles
  // from StableHLO text in the process that runs the program.
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_Serialize);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_DeserializeAndLoad);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_GetCompileOptions);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_OptimizedProgram);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_Load);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Compile);

  // Topologies: one process, the arch profile's chips (PJRT_Client_Devices).
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_TopologyDescription);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_Create);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_Destroy);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_PlatformName);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_PlatformVersion);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_GetDeviceDescriptions);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_Serialize);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_Deserialize);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_Attributes);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_Fingerprint);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_TopologyDescription_GetMemorySpaceKindIds);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_UpdateGlobalProcessInfo);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_LoadedExecutable_GetDeviceAssignment);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_LoadedExecutable_AddressableDeviceLogicalIds);

  // Device memory is simulated: there is no raw pointer, DMA mapping,
  // aliasing, external reference or layout other than dense row-major.
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_GetMemoryLayout);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_UnsafePointer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_OpaqueDeviceMemoryDataPointer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_IncreaseExternalReferenceCount);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_DecreaseExternalReferenceCount);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_Bitcast);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_DonateWithControlDependency);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_CreateViewOfDeviceBuffer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_CreateUninitializedBuffer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_CreateAliasBuffer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_FulfillAliasBuffer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_CreateErrorBuffer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_DmaMap);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_DmaUnmap);

  // Asynchronous and partial transfers: every transfer is whole and synchronous
  // (PJRT_Client_BufferFromHostBuffer, PJRT_Buffer_ToHostBuffer).
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_CopyRawToHost);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Buffer_CopyRawToHostFuture);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_CopyToDeviceStream_Destroy);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_CopyToDeviceStream_AddChunk);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_CopyToDeviceStream_TotalBytes);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_CopyToDeviceStream_GranuleSize);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_CopyToDeviceStream_CurrentBytes);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Client_CreateBuffersForAsyncHostToDevice);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_Destroy);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_TransferData);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_Device);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_BufferCount);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_BufferSize);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_SetBufferError);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncHostToDeviceTransferManager_AddMetadata);

  // Events the caller sets, execution contexts and tracking: the plugin's
  // events are born ready and executions take no context.
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Event_Create);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Event_Set);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_ExecuteContext_Create);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_ExecuteContext_Destroy);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Device_PoisonExecution);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Device_CreateAsyncTrackingEvent);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_AsyncTrackingEvent_Destroy);

  // Figures meshtest reports through its own results, not PJRT's:
  // compile-time memory and cost, generated code, device attributes.
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_SizeOfGeneratedCodeInBytes);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_GetCostAnalysis);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Executable_GetCompiledMemoryStats);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Device_GetAttributes);
  MESHTEST_PJRT_UNIMPLEMENTED(PJRT_Device_ClearMemoryStats);
}

#undef MESHTEST_PJRT_UNIMPLEMENTED

}  // namespace meshtest::pjrt::plugin
