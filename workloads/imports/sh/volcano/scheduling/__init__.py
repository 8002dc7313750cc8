from __future__ import annotations

from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


from ._jsii import *

class _LazyImport:
    def __init__(self, module_name: str) -> None:
        self._module_name = module_name
        self._module: typing.Any = None
    def __getattr__(self, name: str) -> typing.Any:
        if self._module is None:
            import importlib
            self._module = importlib.import_module(self._module_name)
        return getattr(self._module, name)

if typing.TYPE_CHECKING:

    import cdk8s as _cdk8s_d3d9af27
    import constructs as _constructs_77d1e7e8
else:

    _cdk8s_d3d9af27 = _LazyImport("cdk8s")
    _constructs_77d1e7e8 = _LazyImport("constructs")


class Queue(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="shvolcanoscheduling.Queue",
):
    '''Queue is a queue of PodGroup.

    :schema: Queue
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["QueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "Queue" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: Specification of the desired behavior of the queue. More info: https://git.k8s.io/community/contributors/devel/api-conventions.md#spec-and-status
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7e564604f4ec6f4d773a62f700346a75a5e370dce3710b09bc70e09aea29edf8)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = QueueProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["QueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "Queue".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: Specification of the desired behavior of the queue. More info: https://git.k8s.io/community/contributors/devel/api-conventions.md#spec-and-status
        '''
        props = QueueProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "Queue".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="shvolcanoscheduling.QueueProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class QueueProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["QueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Queue is a queue of PodGroup.

        :param metadata: 
        :param spec: Specification of the desired behavior of the queue. More info: https://git.k8s.io/community/contributors/devel/api-conventions.md#spec-and-status

        :schema: Queue
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = QueueSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__894bb2d2746e50ae008ae55c611b65949d26fc28c53588e562a41e0d6ef61c86)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: Queue#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["QueueSpec"]:
        '''Specification of the desired behavior of the queue.

        More info: https://git.k8s.io/community/contributors/devel/api-conventions.md#spec-and-status

        :schema: Queue#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["QueueSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "QueueProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shvolcanoscheduling.QueueSpec",
    jsii_struct_bases=[],
    name_mapping={
        "affinity": "affinity",
        "capability": "capability",
        "dequeue_strategy": "dequeueStrategy",
        "deserved": "deserved",
        "extend_clusters": "extendClusters",
        "guarantee": "guarantee",
        "parent": "parent",
        "priority": "priority",
        "reclaimable": "reclaimable",
        "type": "type",
        "weight": "weight",
    },
)
class QueueSpec:
    def __init__(
        self,
        *,
        affinity: typing.Optional[typing.Union["QueueSpecAffinity", typing.Dict[builtins.str, typing.Any]]] = None,
        capability: typing.Optional[typing.Mapping[builtins.str, "QueueSpecCapability"]] = None,
        dequeue_strategy: typing.Optional["QueueSpecDequeueStrategy"] = None,
        deserved: typing.Optional[typing.Mapping[builtins.str, "QueueSpecDeserved"]] = None,
        extend_clusters: typing.Optional[typing.Sequence[typing.Union["QueueSpecExtendClusters", typing.Dict[builtins.str, typing.Any]]]] = None,
        guarantee: typing.Optional[typing.Union["QueueSpecGuarantee", typing.Dict[builtins.str, typing.Any]]] = None,
        parent: typing.Optional[builtins.str] = None,
        priority: typing.Optional[jsii.Number] = None,
        reclaimable: typing.Optional[builtins.bool] = None,
        type: typing.Optional[builtins.str] = None,
        weight: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''Specification of the desired behavior of the queue.

        More info: https://git.k8s.io/community/contributors/devel/api-conventions.md#spec-and-status

        :param affinity: If specified, the pod owned by the queue will be scheduled with constraint.
        :param capability: ResourceList is a set of (resource name, quantity) pairs.
        :param dequeue_strategy: DequeueStrategy defines the dequeue strategy of queue.
        :param deserved: The amount of resources configured by the user. This part of resource can be shared with other queues and reclaimed back.
        :param extend_clusters: extendCluster indicate the jobs in this Queue will be dispatched to these clusters.
        :param guarantee: Guarantee indicate configuration about resource reservation.
        :param parent: Parent define the parent of queue.
        :param priority: Priority define the priority of queue. Higher values are prioritized for scheduling and considered later during reclamation.
        :param reclaimable: Reclaimable indicate whether the queue can be reclaimed by other queue.
        :param type: Type define the type of queue.
        :param weight: 

        :schema: QueueSpec
        '''
        if isinstance(affinity, dict):
            affinity = QueueSpecAffinity(**affinity)
        if isinstance(guarantee, dict):
            guarantee = QueueSpecGuarantee(**guarantee)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__24ca07e5d7940dd36f4fb48ad96068a86efa1c324385ff21b481790993a88422)
            check_type(argname="argument affinity", value=affinity, expected_type=type_hints["affinity"])
            check_type(argname="argument capability", value=capability, expected_type=type_hints["capability"])
            check_type(argname="argument dequeue_strategy", value=dequeue_strategy, expected_type=type_hints["dequeue_strategy"])
            check_type(argname="argument deserved", value=deserved, expected_type=type_hints["deserved"])
            check_type(argname="argument extend_clusters", value=extend_clusters, expected_type=type_hints["extend_clusters"])
            check_type(argname="argument guarantee", value=guarantee, expected_type=type_hints["guarantee"])
            check_type(argname="argument parent", value=parent, expected_type=type_hints["parent"])
            check_type(argname="argument priority", value=priority, expected_type=type_hints["priority"])
            check_type(argname="argument reclaimable", value=reclaimable, expected_type=type_hints["reclaimable"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if affinity is not None:
            self._values["affinity"] = affinity
        if capability is not None:
            self._values["capability"] = capability
        if dequeue_strategy is not None:
            self._values["dequeue_strategy"] = dequeue_strategy
        if deserved is not None:
            self._values["deserved"] = deserved
        if extend_clusters is not None:
            self._values["extend_clusters"] = extend_clusters
        if guarantee is not None:
            self._values["guarantee"] = guarantee
        if parent is not None:
            self._values["parent"] = parent
        if priority is not None:
            self._values["priority"] = priority
        if reclaimable is not None:
            self._values["reclaimable"] = reclaimable
        if type is not None:
            self._values["type"] = type
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def affinity(self) -> typing.Optional["QueueSpecAffinity"]:
        '''If specified, the pod owned by the queue will be scheduled with constraint.

        :schema: QueueSpec#affinity
        '''
        result = self._values.get("affinity")
        return typing.cast(typing.Optional["QueueSpecAffinity"], result)

    @builtins.property
    def capability(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "QueueSpecCapability"]]:
        '''ResourceList is a set of (resource name, quantity) pairs.

        :schema: QueueSpec#capability
        '''
        result = self._values.get("capability")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "QueueSpecCapability"]], result)

    @builtins.property
    def dequeue_strategy(self) -> typing.Optional["QueueSpecDequeueStrategy"]:
        '''DequeueStrategy defines the dequeue strategy of queue.

        :schema: QueueSpec#dequeueStrategy
        '''
        result = self._values.get("dequeue_strategy")
        return typing.cast(typing.Optional["QueueSpecDequeueStrategy"], result)

    @builtins.property
    def deserved(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "QueueSpecDeserved"]]:
        '''The amount of resources configured by the user.

        This part of resource can be shared with other queues and reclaimed back.

        :schema: QueueSpec#deserved
        '''
        result = self._values.get("deserved")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "QueueSpecDeserved"]], result)

    @builtins.property
    def extend_clusters(
        self,
    ) -> typing.Optional[typing.List["QueueSpecExtendClusters"]]:
        '''extendCluster indicate the jobs in this Queue will be dispatched to these clusters.

        :schema: QueueSpec#extendClusters
        '''
        result = self._values.get("extend_clusters")
        return typing.cast(typing.Optional[typing.List["QueueSpecExtendClusters"]], result)

    @builtins.property
    def guarantee(self) -> typing.Optional["QueueSpecGuarantee"]:
        '''Guarantee indicate configuration about resource reservation.

        :schema: QueueSpec#guarantee
        '''
        result = self._values.get("guarantee")
        return typing.cast(typing.Optional["QueueSpecGuarantee"], result)

    @builtins.property
    def parent(self) -> typing.Optional[builtins.str]:
        '''Parent define the parent of queue.

        :schema: QueueSpec#parent
        '''
        result = self._values.get("parent")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def priority(self) -> typing.Optional[jsii.Number]:
        '''Priority define the priority of queue.

        Higher values are prioritized for scheduling and considered later during reclamation.

        :schema: QueueSpec#priority
        '''
        result = self._values.get("priority")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def reclaimable(self) -> typing.Optional[builtins.bool]:
        '''Reclaimable indicate whether the queue can be reclaimed by other queue.

        :schema: QueueSpec#reclaimable
        '''
        result = self._values.get("reclaimable")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def type(self) -> typing.Optional[builtins.str]:
        '''Type define the type of queue.

        :schema: QueueSpec#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def weight(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: QueueSpec#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "QueueSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shvolcanoscheduling.QueueSpecAffinity",
    jsii_struct_bases=[],
    name_mapping={
        "node_group_affinity": "nodeGroupAffinity",
        "node_group_anti_affinity": "nodeGroupAntiAffinity",
    },
)
class QueueSpecAffinity:
    def __init__(
        self,
        *,
        node_group_affinity: typing.Optional[typing.Union["QueueSpecAffinityNodeGroupAffinity", typing.Dict[builtins.str, typing.Any]]] = None,
        node_group_anti_affinity: typing.Optional[typing.Union["QueueSpecAffinityNodeGroupAntiAffinity", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''If specified, the pod owned by the queue will be scheduled with constraint.

        :param node_group_affinity: Describes nodegroup affinity scheduling rules for the queue(e.g. putting pods of the queue in the nodes of the nodegroup).
        :param node_group_anti_affinity: Describes nodegroup anti-affinity scheduling rules for the queue(e.g. avoid putting pods of the queue in the nodes of the nodegroup).

        :schema: QueueSpecAffinity
        '''
        if isinstance(node_group_affinity, dict):
            node_group_affinity = QueueSpecAffinityNodeGroupAffinity(**node_group_affinity)
        if isinstance(node_group_anti_affinity, dict):
            node_group_anti_affinity = QueueSpecAffinityNodeGroupAntiAffinity(**node_group_anti_affinity)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d8fb5a7649e99de3fece1da9e2d4dfd57d10205bd9ee2b2248a5f5535367de96)
            check_type(argname="argument node_group_affinity", value=node_group_affinity, expected_type=type_hints["node_group_affinity"])
            check_type(argname="argument node_group_anti_affinity", value=node_group_anti_affinity, expected_type=type_hints["node_group_anti_affinity"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node_group_affinity is not None:
            self._values["node_group_affinity"] = node_group_affinity
        if node_group_anti_affinity is not None:
            self._values["node_group_anti_affinity"] = node_group_anti_affinity

    @builtins.property
    def node_group_affinity(
        self,
    ) -> typing.Optional["QueueSpecAffinityNodeGroupAffinity"]:
        '''Describes nodegroup affinity scheduling rules for the queue(e.g. putting pods of the queue in the nodes of the nodegroup).

        :schema: QueueSpecAffinity#nodeGroupAffinity
        '''
        result = self._values.get("node_group_affinity")
        return typing.cast(typing.Optional["QueueSpecAffinityNodeGroupAffinity"], result)

    @builtins.property
    def node_group_anti_affinity(
        self,
    ) -> typing.Optional["QueueSpecAffinityNodeGroupAntiAffinity"]:
        '''Describes nodegroup anti-affinity scheduling rules for the queue(e.g. avoid putting pods of the queue in the nodes of the nodegroup).

        :schema: QueueSpecAffinity#nodeGroupAntiAffinity
        '''
        result = self._values.get("node_group_anti_affinity")
        return typing.cast(typing.Optional["QueueSpecAffinityNodeGroupAntiAffinity"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "QueueSpecAffinity(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shvolcanoscheduling.QueueSpecAffinityNodeGroupAffinity",
    jsii_struct_bases=[],
    name_mapping={
        "preferred_during_scheduling_ignored_during_execution": "preferredDuringSchedulingIgnoredDuringExecution",
        "required_during_scheduling_ignored_during_execution": "requiredDuringSchedulingIgnoredDuringExecution",
    },
)
class QueueSpecAffinityNodeGroupAffinity:
    def __init__(
        self,
        *,
        preferred_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
        required_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''Describes nodegroup affinity scheduling rules for the queue(e.g. putting pods of the queue in the nodes of the nodegroup).

        :param preferred_during_scheduling_ignored_during_execution: 
        :param required_during_scheduling_ignored_during_execution: 

        :schema: QueueSpecAffinityNodeGroupAffinity
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8130fd7f61bec52621073da12ddbba26d16eb872597fb2364b1d93a94dc3f632)
            check_type(argname="argument preferred_during_scheduling_ignored_during_execution", value=preferred_during_scheduling_ignored_during_execution, expected_type=type_hints["preferred_during_scheduling_ignored_during_execution"])
            check_type(argname="argument required_during_scheduling_ignored_during_execution", value=required_during_scheduling_ignored_during_execution, expected_type=type_hints["required_during_scheduling_ignored_during_execution"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if preferred_during_scheduling_ignored_during_execution is not None:
            self._values["preferred_during_scheduling_ignored_during_execution"] = preferred_during_scheduling_ignored_during_execution
        if required_during_scheduling_ignored_during_execution is not None:
            self._values["required_during_scheduling_ignored_during_execution"] = required_during_scheduling_ignored_during_execution

    @builtins.property
    def preferred_during_scheduling_ignored_during_execution(
        self,
    ) -> typing.Optional[typing.List[builtins.str]]:
        '''
        :schema: QueueSpecAffinityNodeGroupAffinity#preferredDuringSchedulingIgnoredDuringExecution
        '''
        result = self._values.get("preferred_during_scheduling_ignored_during_execution")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def required_during_scheduling_ignored_during_execution(
        self,
    ) -> typing.Optional[typing.List[builtins.str]]:
        '''
        :schema: QueueSpecAffinityNodeGroupAffinity#requiredDuringSchedulingIgnoredDuringExecution
        '''
        result = self._values.get("required_during_scheduling_ignored_during_execution")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "QueueSpecAffinityNodeGroupAffinity(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="shvolcanoscheduling.QueueSpecAffinityNodeGroupAntiAffinity",
    jsii_struct_bases=[],
    name_mapping={
        "preferred_during_scheduling_ignored_during_execution": "preferredDuringSchedulingIgnoredDuringExecution",
        "required_during_scheduling_ignored_during_execution": "requiredDuringSchedulingIgnoredDuringExecution",
    },
)
class QueueSpecAffinityNodeGroupAntiAffinity:
    def __init__(
        self,
        *,
        preferred_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
        required_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''Describes nodegroup anti-affinity scheduling rules for the queue(e.g. avoid putting pods of the queue in the nodes of the nodegroup).

        :param preferred_during_scheduling_ignored_during_execution: 
        :param required_during_scheduling_ignored_during_execution: 

        :schema: QueueSpecAffinityNodeGroupAntiAffinity
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a1dcc987fc88c6eba5c233c7cbda301240ff8fc5dd5c9cfbeb5ba854f7fc85e9)
            check_type(argname="argument preferred_during_scheduling_ignored_during_execution", value=preferred_during_scheduling_ignored_during_execution, expected_type=type_hints["preferred_during_scheduling_ignored_during_execution"])
            check_type(argname="argument required_during_scheduling_ignored_during_execution", value=required_during_scheduling_ignored_during_execution, expected_type=type_hints["required_during_scheduling_ignored_during_execution"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if preferred_during_scheduling_ignored_during_execution is not None:
            self._values["preferred_during_scheduling_ignored_during_execution"] = preferred_during_scheduling_ignored_during_execution
        if required_during_scheduling_ignored_during_execution is not None:
            self._values["required_during_scheduling_ignored_during_execution"] = required_during_scheduling_ignored_during_execution

    @builtins.property
    def preferred_during_scheduling_ignored_during_execution(
        self,
    ) -> typing.Optional[typing.List[builtins.str]]:
        '''
        :schema: QueueSpecAffinityNodeGroupAntiAffinity#preferredDuringSchedulingIgnoredDuringExecution
        '''
        result = self._values.get("preferred_during_scheduling_ignored_during_execution")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def required_during_scheduling_ignored_during_execution(
        self,
    ) -> typing.Optional[typing.List[builtins.str]]:
        '''
        :schema: QueueSpecAffinityNodeGroupAntiAffinity#requiredDuringSchedulingIgnoredDuringExecution
        '''
        result = self._values.get("required_during_scheduling_ignored_during_execution")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "QueueSpecAffinityNodeGroupAntiAffinity(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class QueueSpecCapability(
    metaclass=jsii.JSIIMeta,
    jsii_type="shvolcanoscheduling.QueueSpecCapability",
):
    '''
    :schema: QueueSpecCapability
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "QueueSpecCapability":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__847ce46380d3c6dbdeb551dc8689b125bb114322e1eec06a6a41c9a76d5ce880)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecCapability", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "QueueSpecCapability":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e8b94a8c9c03b71a598c4d98b1fd16fdbfe1a9292d199c4462508a28e15948a3)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecCapability", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="shvolcanoscheduling.QueueSpecDequeueStrategy")
class QueueSpecDequeueStrategy(enum.Enum):
    '''DequeueStrategy defines the dequeue strategy of queue.

    :schema: QueueSpecDequeueStrategy
    '''

    FIFO = "FIFO"
    '''fifo.'''
    TRAVERSE = "TRAVERSE"
    '''traverse.'''


class QueueSpecDeserved(
    metaclass=jsii.JSIIMeta,
    jsii_type="shvolcanoscheduling.QueueSpecDeserved",
):
    '''
    :schema: QueueSpecDeserved
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "QueueSpecDeserved":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__239f281f87ca8194adc9e89f2bf417eb67a91e6bfdd6bd37666856f354568cd2)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecDeserved", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "QueueSpecDeserved":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e7965cd1ac96061e85cd805d57a6a595b3cffd7231f54e4d3810d3e5b7070e2f)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecDeserved", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="shvolcanoscheduling.QueueSpecExtendClusters",
    jsii_struct_bases=[],
    name_mapping={"capacity": "capacity", "name": "name", "weight": "weight"},
)
class QueueSpecExtendClusters:
    def __init__(
        self,
        *,
        capacity: typing.Optional[typing.Mapping[builtins.str, "QueueSpecExtendClustersCapacity"]] = None,
        name: typing.Optional[builtins.str] = None,
        weight: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''CluterSpec represents the template of Cluster.

        :param capacity: ResourceList is a set of (resource name, quantity) pairs.
        :param name: 
        :param weight: 

        :schema: QueueSpecExtendClusters
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a5cbf53920f74f80c064ac09893e25a39ec724f10d7506124eeea581ebeeea9d)
            check_type(argname="argument capacity", value=capacity, expected_type=type_hints["capacity"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if capacity is not None:
            self._values["capacity"] = capacity
        if name is not None:
            self._values["name"] = name
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def capacity(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "QueueSpecExtendClustersCapacity"]]:
        '''ResourceList is a set of (resource name, quantity) pairs.

        :schema: QueueSpecExtendClusters#capacity
        '''
        result = self._values.get("capacity")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "QueueSpecExtendClustersCapacity"]], result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: QueueSpecExtendClusters#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def weight(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: QueueSpecExtendClusters#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "QueueSpecExtendClusters(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class QueueSpecExtendClustersCapacity(
    metaclass=jsii.JSIIMeta,
    jsii_type="shvolcanoscheduling.QueueSpecExtendClustersCapacity",
):
    '''
    :schema: QueueSpecExtendClustersCapacity
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "QueueSpecExtendClustersCapacity":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ba409d15c5402c036a6ded211599d0ee4e6c12a13b55b8115851bbae17c8fc79)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecExtendClustersCapacity", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "QueueSpecExtendClustersCapacity":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d52898d8274d9e4857364846b221a81ae2646c87be05a63f49d3ea4f4533ebe1)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecExtendClustersCapacity", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="shvolcanoscheduling.QueueSpecGuarantee",
    jsii_struct_bases=[],
    name_mapping={"resource": "resource"},
)
class QueueSpecGuarantee:
    def __init__(
        self,
        *,
        resource: typing.Optional[typing.Mapping[builtins.str, "QueueSpecGuaranteeResource"]] = None,
    ) -> None:
        '''Guarantee indicate configuration about resource reservation.

        :param resource: The amount of cluster resource reserved for queue. Just set either ``percentage`` or ``resource``

        :schema: QueueSpecGuarantee
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__00b1c660d507b52878ecc631fe545420c09f3bdbcdec6f0916297d5a046bbd6c)
            check_type(argname="argument resource", value=resource, expected_type=type_hints["resource"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if resource is not None:
            self._values["resource"] = resource

    @builtins.property
    def resource(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "QueueSpecGuaranteeResource"]]:
        '''The amount of cluster resource reserved for queue.

        Just set either ``percentage`` or ``resource``

        :schema: QueueSpecGuarantee#resource
        '''
        result = self._values.get("resource")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "QueueSpecGuaranteeResource"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "QueueSpecGuarantee(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class QueueSpecGuaranteeResource(
    metaclass=jsii.JSIIMeta,
    jsii_type="shvolcanoscheduling.QueueSpecGuaranteeResource",
):
    '''
    :schema: QueueSpecGuaranteeResource
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "QueueSpecGuaranteeResource":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__290e6f0fc9c9731f3b66f029b1ed990f93503f8805f28b7e7621d4d307acd287)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecGuaranteeResource", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "QueueSpecGuaranteeResource":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__107c2746321373f0b952c77ffb6db135c57cb56817df150c2e2994482087e854)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("QueueSpecGuaranteeResource", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


__all__ = [
    "Queue",
    "QueueProps",
    "QueueSpec",
    "QueueSpecAffinity",
    "QueueSpecAffinityNodeGroupAffinity",
    "QueueSpecAffinityNodeGroupAntiAffinity",
    "QueueSpecCapability",
    "QueueSpecDequeueStrategy",
    "QueueSpecDeserved",
    "QueueSpecExtendClusters",
    "QueueSpecExtendClustersCapacity",
    "QueueSpecGuarantee",
    "QueueSpecGuaranteeResource",
]

publication.publish()

def _typecheckingstub__7e564604f4ec6f4d773a62f700346a75a5e370dce3710b09bc70e09aea29edf8(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[QueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__894bb2d2746e50ae008ae55c611b65949d26fc28c53588e562a41e0d6ef61c86(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[QueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__24ca07e5d7940dd36f4fb48ad96068a86efa1c324385ff21b481790993a88422(
    *,
    affinity: typing.Optional[typing.Union[QueueSpecAffinity, typing.Dict[builtins.str, typing.Any]]] = None,
    capability: typing.Optional[typing.Mapping[builtins.str, QueueSpecCapability]] = None,
    dequeue_strategy: typing.Optional[QueueSpecDequeueStrategy] = None,
    deserved: typing.Optional[typing.Mapping[builtins.str, QueueSpecDeserved]] = None,
    extend_clusters: typing.Optional[typing.Sequence[typing.Union[QueueSpecExtendClusters, typing.Dict[builtins.str, typing.Any]]]] = None,
    guarantee: typing.Optional[typing.Union[QueueSpecGuarantee, typing.Dict[builtins.str, typing.Any]]] = None,
    parent: typing.Optional[builtins.str] = None,
    priority: typing.Optional[jsii.Number] = None,
    reclaimable: typing.Optional[builtins.bool] = None,
    type: typing.Optional[builtins.str] = None,
    weight: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d8fb5a7649e99de3fece1da9e2d4dfd57d10205bd9ee2b2248a5f5535367de96(
    *,
    node_group_affinity: typing.Optional[typing.Union[QueueSpecAffinityNodeGroupAffinity, typing.Dict[builtins.str, typing.Any]]] = None,
    node_group_anti_affinity: typing.Optional[typing.Union[QueueSpecAffinityNodeGroupAntiAffinity, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8130fd7f61bec52621073da12ddbba26d16eb872597fb2364b1d93a94dc3f632(
    *,
    preferred_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
    required_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a1dcc987fc88c6eba5c233c7cbda301240ff8fc5dd5c9cfbeb5ba854f7fc85e9(
    *,
    preferred_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
    required_during_scheduling_ignored_during_execution: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__847ce46380d3c6dbdeb551dc8689b125bb114322e1eec06a6a41c9a76d5ce880(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e8b94a8c9c03b71a598c4d98b1fd16fdbfe1a9292d199c4462508a28e15948a3(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__239f281f87ca8194adc9e89f2bf417eb67a91e6bfdd6bd37666856f354568cd2(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e7965cd1ac96061e85cd805d57a6a595b3cffd7231f54e4d3810d3e5b7070e2f(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a5cbf53920f74f80c064ac09893e25a39ec724f10d7506124eeea581ebeeea9d(
    *,
    capacity: typing.Optional[typing.Mapping[builtins.str, QueueSpecExtendClustersCapacity]] = None,
    name: typing.Optional[builtins.str] = None,
    weight: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ba409d15c5402c036a6ded211599d0ee4e6c12a13b55b8115851bbae17c8fc79(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d52898d8274d9e4857364846b221a81ae2646c87be05a63f49d3ea4f4533ebe1(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__00b1c660d507b52878ecc631fe545420c09f3bdbcdec6f0916297d5a046bbd6c(
    *,
    resource: typing.Optional[typing.Mapping[builtins.str, QueueSpecGuaranteeResource]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__290e6f0fc9c9731f3b66f029b1ed990f93503f8805f28b7e7621d4d307acd287(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__107c2746321373f0b952c77ffb6db135c57cb56817df150c2e2994482087e854(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass
