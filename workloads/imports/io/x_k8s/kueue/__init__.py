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


class ClusterQueue(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueue",
):
    '''ClusterQueue is the Schema for the clusterQueue API.

    :schema: ClusterQueue
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ClusterQueue" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a4d4299d0c519d9e192957aea2128640ba63416e9595b63aefc69a5781b1410e)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ClusterQueueProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ClusterQueue".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        props = ClusterQueueProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ClusterQueue".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ClusterQueueProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ClusterQueue is the Schema for the clusterQueue API.

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.

        :schema: ClusterQueue
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ClusterQueueSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0d253e8ef936fa7ad597345c72c17092bf9cf15e791d65f4f3521b2494741de9)
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
        :schema: ClusterQueue#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ClusterQueueSpec"]:
        '''spec is the specification of the ClusterQueue.

        :schema: ClusterQueue#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ClusterQueueSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpec",
    jsii_struct_bases=[],
    name_mapping={
        "admission_checks_strategy": "admissionChecksStrategy",
        "admission_scope": "admissionScope",
        "cohort_name": "cohortName",
        "concurrent_admission_policy": "concurrentAdmissionPolicy",
        "fair_sharing": "fairSharing",
        "flavor_fungibility": "flavorFungibility",
        "namespace_selector": "namespaceSelector",
        "preemption": "preemption",
        "queueing_strategy": "queueingStrategy",
        "resource_groups": "resourceGroups",
        "stop_policy": "stopPolicy",
    },
)
class ClusterQueueSpec:
    def __init__(
        self,
        *,
        admission_checks_strategy: typing.Optional[typing.Union["ClusterQueueSpecAdmissionChecksStrategy", typing.Dict[builtins.str, typing.Any]]] = None,
        admission_scope: typing.Optional[typing.Union["ClusterQueueSpecAdmissionScope", typing.Dict[builtins.str, typing.Any]]] = None,
        cohort_name: typing.Optional[builtins.str] = None,
        concurrent_admission_policy: typing.Optional[typing.Union["ClusterQueueSpecConcurrentAdmissionPolicy", typing.Dict[builtins.str, typing.Any]]] = None,
        fair_sharing: typing.Optional[typing.Union["ClusterQueueSpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        flavor_fungibility: typing.Optional[typing.Union["ClusterQueueSpecFlavorFungibility", typing.Dict[builtins.str, typing.Any]]] = None,
        namespace_selector: typing.Optional[typing.Union["ClusterQueueSpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        preemption: typing.Optional[typing.Union["ClusterQueueSpecPreemption", typing.Dict[builtins.str, typing.Any]]] = None,
        queueing_strategy: typing.Optional["ClusterQueueSpecQueueingStrategy"] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
        stop_policy: typing.Optional["ClusterQueueSpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the ClusterQueue.

        :param admission_checks_strategy: admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.
        :param admission_scope: admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.
        :param cohort_name: cohortName that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other. A CQ can be a member of a single borrowing cohort. A workload submitted to a queue referencing this CQ can borrow quota from any CQ in the cohort. Only quota for the [resource, flavor] pairs listed in the CQ can be borrowed. If empty, this ClusterQueue cannot borrow from any other ClusterQueue and vice versa. A cohort is a name that links CQs together, but it doesn't reference any object.
        :param concurrent_admission_policy: concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature. Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission. Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running. It enables them to migrate to more preferable, whenever capacity appears.
        :param fair_sharing: fairSharing defines the properties of the ClusterQueue when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param flavor_fungibility: flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.
        :param namespace_selector: namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue. Beyond this basic support for policy, a policy agent like Gatekeeper should be used to enforce more advanced policies. Defaults to null which is a nothing selector (no namespaces eligible). If set to an empty selector ``{}``, then all namespaces are eligible. Default: null which is a nothing selector (no namespaces eligible).
        :param preemption: preemption defines the preemption policies.
        :param queueing_strategy: queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:. - StrictFIFO: workloads are ordered strictly by creation time. Older workloads that can't be admitted will block admitting newer workloads even if they fit available quota. - BestEffortFIFO: workloads are ordered by creation time, however older workloads that can't be admitted will not block admitting newer workloads that fit existing quota.
        :param resource_groups: resourceGroups describes groups of resources. Each resource group defines the list of resources and a list of flavors that provide quotas for these resources. Each resource and each flavor can only form part of one resource group. resourceGroups can be up to 16, with a max of 256 total flavors across all groups.
        :param stop_policy: stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueSpec
        '''
        if isinstance(admission_checks_strategy, dict):
            admission_checks_strategy = ClusterQueueSpecAdmissionChecksStrategy(**admission_checks_strategy)
        if isinstance(admission_scope, dict):
            admission_scope = ClusterQueueSpecAdmissionScope(**admission_scope)
        if isinstance(concurrent_admission_policy, dict):
            concurrent_admission_policy = ClusterQueueSpecConcurrentAdmissionPolicy(**concurrent_admission_policy)
        if isinstance(fair_sharing, dict):
            fair_sharing = ClusterQueueSpecFairSharing(**fair_sharing)
        if isinstance(flavor_fungibility, dict):
            flavor_fungibility = ClusterQueueSpecFlavorFungibility(**flavor_fungibility)
        if isinstance(namespace_selector, dict):
            namespace_selector = ClusterQueueSpecNamespaceSelector(**namespace_selector)
        if isinstance(preemption, dict):
            preemption = ClusterQueueSpecPreemption(**preemption)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b99250b7d4571f1892dd2329afe9053e3af4493f6a2de73c8cbf9abdfd12b3f6)
            check_type(argname="argument admission_checks_strategy", value=admission_checks_strategy, expected_type=type_hints["admission_checks_strategy"])
            check_type(argname="argument admission_scope", value=admission_scope, expected_type=type_hints["admission_scope"])
            check_type(argname="argument cohort_name", value=cohort_name, expected_type=type_hints["cohort_name"])
            check_type(argname="argument concurrent_admission_policy", value=concurrent_admission_policy, expected_type=type_hints["concurrent_admission_policy"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument flavor_fungibility", value=flavor_fungibility, expected_type=type_hints["flavor_fungibility"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument preemption", value=preemption, expected_type=type_hints["preemption"])
            check_type(argname="argument queueing_strategy", value=queueing_strategy, expected_type=type_hints["queueing_strategy"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if admission_checks_strategy is not None:
            self._values["admission_checks_strategy"] = admission_checks_strategy
        if admission_scope is not None:
            self._values["admission_scope"] = admission_scope
        if cohort_name is not None:
            self._values["cohort_name"] = cohort_name
        if concurrent_admission_policy is not None:
            self._values["concurrent_admission_policy"] = concurrent_admission_policy
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if flavor_fungibility is not None:
            self._values["flavor_fungibility"] = flavor_fungibility
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if preemption is not None:
            self._values["preemption"] = preemption
        if queueing_strategy is not None:
            self._values["queueing_strategy"] = queueing_strategy
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def admission_checks_strategy(
        self,
    ) -> typing.Optional["ClusterQueueSpecAdmissionChecksStrategy"]:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        :schema: ClusterQueueSpec#admissionChecksStrategy
        '''
        result = self._values.get("admission_checks_strategy")
        return typing.cast(typing.Optional["ClusterQueueSpecAdmissionChecksStrategy"], result)

    @builtins.property
    def admission_scope(self) -> typing.Optional["ClusterQueueSpecAdmissionScope"]:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :schema: ClusterQueueSpec#admissionScope
        '''
        result = self._values.get("admission_scope")
        return typing.cast(typing.Optional["ClusterQueueSpecAdmissionScope"], result)

    @builtins.property
    def cohort_name(self) -> typing.Optional[builtins.str]:
        '''cohortName that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other.

        A CQ can be a member of a single borrowing cohort. A workload submitted
        to a queue referencing this CQ can borrow quota from any CQ in the cohort.
        Only quota for the [resource, flavor] pairs listed in the CQ can be
        borrowed.
        If empty, this ClusterQueue cannot borrow from any other ClusterQueue and
        vice versa.

        A cohort is a name that links CQs together, but it doesn't reference any
        object.

        :schema: ClusterQueueSpec#cohortName
        '''
        result = self._values.get("cohort_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def concurrent_admission_policy(
        self,
    ) -> typing.Optional["ClusterQueueSpecConcurrentAdmissionPolicy"]:
        '''concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature.

        Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission.
        Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running.
        It enables them to migrate to more preferable, whenever capacity appears.

        :schema: ClusterQueueSpec#concurrentAdmissionPolicy
        '''
        result = self._values.get("concurrent_admission_policy")
        return typing.cast(typing.Optional["ClusterQueueSpecConcurrentAdmissionPolicy"], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["ClusterQueueSpecFairSharing"]:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: ClusterQueueSpec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["ClusterQueueSpecFairSharing"], result)

    @builtins.property
    def flavor_fungibility(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibility"]:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :schema: ClusterQueueSpec#flavorFungibility
        '''
        result = self._values.get("flavor_fungibility")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibility"], result)

    @builtins.property
    def namespace_selector(
        self,
    ) -> typing.Optional["ClusterQueueSpecNamespaceSelector"]:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueSpec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["ClusterQueueSpecNamespaceSelector"], result)

    @builtins.property
    def preemption(self) -> typing.Optional["ClusterQueueSpecPreemption"]:
        '''preemption defines the preemption policies.

        :schema: ClusterQueueSpec#preemption
        '''
        result = self._values.get("preemption")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemption"], result)

    @builtins.property
    def queueing_strategy(self) -> typing.Optional["ClusterQueueSpecQueueingStrategy"]:
        '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

        - StrictFIFO: workloads are ordered strictly by creation time.
          Older workloads that can't be admitted will block admitting newer
          workloads even if they fit available quota.
        - BestEffortFIFO: workloads are ordered by creation time,
          however older workloads that can't be admitted will not block
          admitting newer workloads that fit existing quota.

        :schema: ClusterQueueSpec#queueingStrategy
        '''
        result = self._values.get("queueing_strategy")
        return typing.cast(typing.Optional["ClusterQueueSpecQueueingStrategy"], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueSpecResourceGroups"]]:
        '''resourceGroups describes groups of resources.

        Each resource group defines the list of resources and a list of flavors
        that provide quotas for these resources.
        Each resource and each flavor can only form part of one resource group.
        resourceGroups can be up to 16, with a max of 256 total flavors across all groups.

        :schema: ClusterQueueSpec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecResourceGroups"]], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["ClusterQueueSpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueSpec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["ClusterQueueSpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecAdmissionChecksStrategy",
    jsii_struct_bases=[],
    name_mapping={"admission_checks": "admissionChecks"},
)
class ClusterQueueSpecAdmissionChecksStrategy:
    def __init__(
        self,
        *,
        admission_checks: typing.Sequence[typing.Union["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        :param admission_checks: admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueSpecAdmissionChecksStrategy
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cada476e4694e2e4fc21322455ffcb93fcd53c1551447271d5987104f24b7fe6)
            check_type(argname="argument admission_checks", value=admission_checks, expected_type=type_hints["admission_checks"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_checks": admission_checks,
        }

    @builtins.property
    def admission_checks(
        self,
    ) -> typing.List["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks"]:
        '''admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueSpecAdmissionChecksStrategy#admissionChecks
        '''
        result = self._values.get("admission_checks")
        assert result is not None, "Required property 'admission_checks' is missing"
        return typing.cast(typing.List["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionChecksStrategy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "on_flavors": "onFlavors"},
)
class ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks:
    def __init__(
        self,
        *,
        name: builtins.str,
        on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''AdmissionCheckStrategyRule defines rules for a single AdmissionCheck.

        :param name: name is an AdmissionCheck's name.
        :param on_flavors: onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for. If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__23ce63cf2e817ebbe2098194c102283b1143f45770181b85d4598f30142606c7)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument on_flavors", value=on_flavors, expected_type=type_hints["on_flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if on_flavors is not None:
            self._values["on_flavors"] = on_flavors

    @builtins.property
    def name(self) -> builtins.str:
        '''name is an AdmissionCheck's name.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def on_flavors(self) -> typing.Optional[typing.List[builtins.str]]:
        '''onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for.

        If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks#onFlavors
        '''
        result = self._values.get("on_flavors")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecAdmissionScope",
    jsii_struct_bases=[],
    name_mapping={"admission_mode": "admissionMode"},
)
class ClusterQueueSpecAdmissionScope:
    def __init__(
        self,
        *,
        admission_mode: "ClusterQueueSpecAdmissionScopeAdmissionMode",
    ) -> None:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :param admission_mode: admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope. Possible values are: - UsageBasedAdmissionFairSharing - NoAdmissionFairSharing

        :schema: ClusterQueueSpecAdmissionScope
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b4f1bba1b54c5e125d4d05cf158c91272466cfefdfeb6212f83c87b3d1d1ce84)
            check_type(argname="argument admission_mode", value=admission_mode, expected_type=type_hints["admission_mode"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_mode": admission_mode,
        }

    @builtins.property
    def admission_mode(self) -> "ClusterQueueSpecAdmissionScopeAdmissionMode":
        '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

        Possible values are:

        - UsageBasedAdmissionFairSharing
        - NoAdmissionFairSharing

        :schema: ClusterQueueSpecAdmissionScope#admissionMode
        '''
        result = self._values.get("admission_mode")
        assert result is not None, "Required property 'admission_mode' is missing"
        return typing.cast("ClusterQueueSpecAdmissionScopeAdmissionMode", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionScope(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecAdmissionScopeAdmissionMode")
class ClusterQueueSpecAdmissionScopeAdmissionMode(enum.Enum):
    '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

    Possible values are:

    - UsageBasedAdmissionFairSharing
    - NoAdmissionFairSharing

    :schema: ClusterQueueSpecAdmissionScopeAdmissionMode
    '''

    USAGE_BASED_ADMISSION_FAIR_SHARING = "USAGE_BASED_ADMISSION_FAIR_SHARING"
    '''UsageBasedAdmissionFairSharing.'''
    NO_ADMISSION_FAIR_SHARING = "NO_ADMISSION_FAIR_SHARING"
    '''NoAdmissionFairSharing.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecConcurrentAdmissionPolicy",
    jsii_struct_bases=[],
    name_mapping={"migration": "migration"},
)
class ClusterQueueSpecConcurrentAdmissionPolicy:
    def __init__(
        self,
        *,
        migration: typing.Union["ClusterQueueSpecConcurrentAdmissionPolicyMigration", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature.

        Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission.
        Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running.
        It enables them to migrate to more preferable, whenever capacity appears.

        :param migration: migration defines the constraints on Workload's migration. The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor. All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently. Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor. The Variants that pursue less favorable flavors are deactivated. Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :schema: ClusterQueueSpecConcurrentAdmissionPolicy
        '''
        if isinstance(migration, dict):
            migration = ClusterQueueSpecConcurrentAdmissionPolicyMigration(**migration)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ee3855a50d88f8864f703b3da21748a9d7c5b6d96140c88e18d024ab3a6aaf09)
            check_type(argname="argument migration", value=migration, expected_type=type_hints["migration"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "migration": migration,
        }

    @builtins.property
    def migration(self) -> "ClusterQueueSpecConcurrentAdmissionPolicyMigration":
        '''migration defines the constraints on Workload's migration.

        The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor.
        All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently.
        Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more
        favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor.
        The Variants that pursue less favorable flavors are deactivated.
        Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :schema: ClusterQueueSpecConcurrentAdmissionPolicy#migration
        '''
        result = self._values.get("migration")
        assert result is not None, "Required property 'migration' is missing"
        return typing.cast("ClusterQueueSpecConcurrentAdmissionPolicyMigration", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecConcurrentAdmissionPolicy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecConcurrentAdmissionPolicyMigration",
    jsii_struct_bases=[],
    name_mapping={"mode": "mode", "constraints": "constraints"},
)
class ClusterQueueSpecConcurrentAdmissionPolicyMigration:
    def __init__(
        self,
        *,
        mode: "ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode",
        constraints: typing.Optional[typing.Union["ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''migration defines the constraints on Workload's migration.

        The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor.
        All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently.
        Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more
        favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor.
        The Variants that pursue less favorable flavors are deactivated.
        Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :param mode: mode defines the mode of Workload's migration. The possible values are: - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running. - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.
        :param constraints: constraints defines the constraints of Workload's migration.

        :schema: ClusterQueueSpecConcurrentAdmissionPolicyMigration
        '''
        if isinstance(constraints, dict):
            constraints = ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints(**constraints)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__818ffabd32e883ba14ea536d244930719c2a4a802e7ec1caf281308ae336166c)
            check_type(argname="argument mode", value=mode, expected_type=type_hints["mode"])
            check_type(argname="argument constraints", value=constraints, expected_type=type_hints["constraints"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "mode": mode,
        }
        if constraints is not None:
            self._values["constraints"] = constraints

    @builtins.property
    def mode(self) -> "ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode":
        '''mode defines the mode of Workload's migration.

        The possible values are:

        - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running.
        - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.

        :schema: ClusterQueueSpecConcurrentAdmissionPolicyMigration#mode
        '''
        result = self._values.get("mode")
        assert result is not None, "Required property 'mode' is missing"
        return typing.cast("ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode", result)

    @builtins.property
    def constraints(
        self,
    ) -> typing.Optional["ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints"]:
        '''constraints defines the constraints of Workload's migration.

        :schema: ClusterQueueSpecConcurrentAdmissionPolicyMigration#constraints
        '''
        result = self._values.get("constraints")
        return typing.cast(typing.Optional["ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecConcurrentAdmissionPolicyMigration(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints",
    jsii_struct_bases=[],
    name_mapping={"last_acceptable_flavor_name": "lastAcceptableFlavorName"},
)
class ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints:
    def __init__(
        self,
        *,
        last_acceptable_flavor_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''constraints defines the constraints of Workload's migration.

        :param last_acceptable_flavor_name: lastAcceptableFlavorName defines the last acceptable flavor a Workload can migrate to. The order is based on the order of flavors in ClusterQueue. It can only be used if the Mode is ``TryPreferredFlavors``. If the Mode is ``TryPreferredFlavors`` and LastAcceptableFlavorName is not specified, then Workload can migrate to any flavor that is more preferable than the one it was admitted to.

        :schema: ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__900d87898566299ed6f3d5f2fdbe19952784e9c47d59e190607e95d831136b46)
            check_type(argname="argument last_acceptable_flavor_name", value=last_acceptable_flavor_name, expected_type=type_hints["last_acceptable_flavor_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if last_acceptable_flavor_name is not None:
            self._values["last_acceptable_flavor_name"] = last_acceptable_flavor_name

    @builtins.property
    def last_acceptable_flavor_name(self) -> typing.Optional[builtins.str]:
        '''lastAcceptableFlavorName defines the last acceptable flavor a Workload can migrate to.

        The order is based on the order of flavors in ClusterQueue.
        It can only be used if the Mode is ``TryPreferredFlavors``.
        If the Mode is ``TryPreferredFlavors`` and LastAcceptableFlavorName is not specified, then
        Workload can migrate to any flavor that is more preferable than the one it was admitted to.

        :schema: ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints#lastAcceptableFlavorName
        '''
        result = self._values.get("last_acceptable_flavor_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="iox-k8skueue.ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode"
)
class ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode(enum.Enum):
    '''mode defines the mode of Workload's migration.

    The possible values are:

    - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running.
    - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.

    :schema: ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode
    '''

    TRY_PREFERRED_FLAVORS = "TRY_PREFERRED_FLAVORS"
    '''TryPreferredFlavors.'''
    RETAIN_FIRST_ADMISSION = "RETAIN_FIRST_ADMISSION"
    '''RetainFirstAdmission.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class ClusterQueueSpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["ClusterQueueSpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueSpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__fd9fb3b32bd22e4fc51d0214f0f154d2fdb351a3a1125bbee6396e44d746a148)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["ClusterQueueSpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueSpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["ClusterQueueSpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueSpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: ClusterQueueSpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "ClusterQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ca2961666971173c41bbe105a732cfb10638ed66c4b0a0c7e782ca691a3f06bb)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "ClusterQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d68791cc3be4584d475a0a38997a13627c4b0bb5da57db590624f9ad37af9886)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibility",
    jsii_struct_bases=[],
    name_mapping={
        "preference": "preference",
        "when_can_borrow": "whenCanBorrow",
        "when_can_preempt": "whenCanPreempt",
    },
)
class ClusterQueueSpecFlavorFungibility:
    def __init__(
        self,
        *,
        preference: typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"] = None,
        when_can_borrow: typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"] = None,
        when_can_preempt: typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"] = None,
    ) -> None:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :param preference: preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both. The possible values are: - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption when such a choice is possible. More technically it minimizes the borrowing distance in the cohort tree, and solves tie-breaks by preferring better preemption mode (reclaim over preemption within ClusterQueue). - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing when such a choice is possible. More technically it optimizes the preemption mode (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing the borrowing distance in the cohort tree.
        :param when_can_borrow: whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:. - ``MayStopSearch`` (default): stop the search for candidate flavors if workload fits or requires borrowing to fit. - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.
        :param when_can_preempt: whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:. - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires preemption to fit. - ``TryNextFlavor`` (default): try next flavor if workload requires preemption to fit in current flavor.

        :schema: ClusterQueueSpecFlavorFungibility
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__36cd6e618a44078371f8e91f8447b2b24a2755c0a7b084b255f9b2e67b37dedc)
            check_type(argname="argument preference", value=preference, expected_type=type_hints["preference"])
            check_type(argname="argument when_can_borrow", value=when_can_borrow, expected_type=type_hints["when_can_borrow"])
            check_type(argname="argument when_can_preempt", value=when_can_preempt, expected_type=type_hints["when_can_preempt"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if preference is not None:
            self._values["preference"] = preference
        if when_can_borrow is not None:
            self._values["when_can_borrow"] = when_can_borrow
        if when_can_preempt is not None:
            self._values["when_can_preempt"] = when_can_preempt

    @builtins.property
    def preference(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"]:
        '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

        The possible values are:

        - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
          when such a choice is possible. More technically it minimizes the borrowing distance
          in the cohort tree, and solves tie-breaks by preferring better preemption mode
          (reclaim over preemption within ClusterQueue).
        - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
          when such a choice is possible.  More technically it optimizes the preemption mode
          (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
          the borrowing distance in the cohort tree.

        :schema: ClusterQueueSpecFlavorFungibility#preference
        '''
        result = self._values.get("preference")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"], result)

    @builtins.property
    def when_can_borrow(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"]:
        '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

        - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
          fits or requires borrowing to fit.
        - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.

        :schema: ClusterQueueSpecFlavorFungibility#whenCanBorrow
        '''
        result = self._values.get("when_can_borrow")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"], result)

    @builtins.property
    def when_can_preempt(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"]:
        '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

        - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
          preemption to fit.
        - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
          to fit in current flavor.

        :schema: ClusterQueueSpecFlavorFungibility#whenCanPreempt
        '''
        result = self._values.get("when_can_preempt")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecFlavorFungibility(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibilityPreference")
class ClusterQueueSpecFlavorFungibilityPreference(enum.Enum):
    '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

    The possible values are:

    - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
      when such a choice is possible. More technically it minimizes the borrowing distance
      in the cohort tree, and solves tie-breaks by preferring better preemption mode
      (reclaim over preemption within ClusterQueue).
    - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
      when such a choice is possible.  More technically it optimizes the preemption mode
      (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
      the borrowing distance in the cohort tree.

    :schema: ClusterQueueSpecFlavorFungibilityPreference
    '''

    BORROWING_OVER_PREEMPTION = "BORROWING_OVER_PREEMPTION"
    '''BorrowingOverPreemption.'''
    PREEMPTION_OVER_BORROWING = "PREEMPTION_OVER_BORROWING"
    '''PreemptionOverBorrowing.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibilityWhenCanBorrow")
class ClusterQueueSpecFlavorFungibilityWhenCanBorrow(enum.Enum):
    '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

    - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
      fits or requires borrowing to fit.
    - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.

    :schema: ClusterQueueSpecFlavorFungibilityWhenCanBorrow
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecFlavorFungibilityWhenCanPreempt")
class ClusterQueueSpecFlavorFungibilityWhenCanPreempt(enum.Enum):
    '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

    - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
      preemption to fit.
    - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
      to fit in current flavor.

    :schema: ClusterQueueSpecFlavorFungibilityWhenCanPreempt
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ClusterQueueSpecNamespaceSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecNamespaceSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueSpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7326d7756459331a0ee25fb65ed8fc72a2c19b5e1c0d5d02c5a23121c1b126ba)
            check_type(argname="argument match_expressions", value=match_expressions, expected_type=type_hints["match_expressions"])
            check_type(argname="argument match_labels", value=match_labels, expected_type=type_hints["match_labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if match_expressions is not None:
            self._values["match_expressions"] = match_expressions
        if match_labels is not None:
            self._values["match_labels"] = match_labels

    @builtins.property
    def match_expressions(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueSpecNamespaceSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ClusterQueueSpecNamespaceSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecNamespaceSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ClusterQueueSpecNamespaceSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecNamespaceSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ClusterQueueSpecNamespaceSelectorMatchExpressions:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: builtins.str,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.

        :param key: key is the label key that the selector applies to.
        :param operator: operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.
        :param values: values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__796da06ac2d044dc59c7a42e3571ecb0137fd1fb75294636576d78ff33683e9c)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''key is the label key that the selector applies to.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''values is an array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. This array is replaced during a strategic
        merge patch.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecNamespaceSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecPreemption",
    jsii_struct_bases=[],
    name_mapping={
        "borrow_within_cohort": "borrowWithinCohort",
        "reclaim_within_cohort": "reclaimWithinCohort",
        "within_cluster_queue": "withinClusterQueue",
    },
)
class ClusterQueueSpecPreemption:
    def __init__(
        self,
        *,
        borrow_within_cohort: typing.Optional[typing.Union["ClusterQueueSpecPreemptionBorrowWithinCohort", typing.Dict[builtins.str, typing.Any]]] = None,
        reclaim_within_cohort: typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"] = None,
        within_cluster_queue: typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"] = None,
    ) -> None:
        '''preemption defines the preemption policies.

        :param borrow_within_cohort: borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing. May only be configured with Classical Preemption, and **not** with Fair Sharing.
        :param reclaim_within_cohort: reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota. The possible values are: - ``Never`` (default): do not preempt Workloads in the cohort. - ``LowerPriority``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, only preempt Workloads in the cohort that have lower priority than the pending Workload. **Fair Sharing** only preempt Workloads in the cohort that have lower priority than the pending Workload and that satisfy the Fair Sharing preemptionStategies. - ``Any``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, preempt any Workload in the cohort, irrespective of priority. **Fair Sharing** preempt Workloads in the cohort that satisfy the Fair Sharing preemptionStrategies.
        :param within_cluster_queue: withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue. The possible values are: - ``Never`` (default): do not preempt Workloads in the ClusterQueue. - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have lower priority than the pending Workload. - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that either have a lower priority than the pending workload or equal priority and are newer than the pending workload.

        :schema: ClusterQueueSpecPreemption
        '''
        if isinstance(borrow_within_cohort, dict):
            borrow_within_cohort = ClusterQueueSpecPreemptionBorrowWithinCohort(**borrow_within_cohort)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__befcd4779c8c5c38566e91ee504ea385afb130ee7be710097002ba2c1eb451d6)
            check_type(argname="argument borrow_within_cohort", value=borrow_within_cohort, expected_type=type_hints["borrow_within_cohort"])
            check_type(argname="argument reclaim_within_cohort", value=reclaim_within_cohort, expected_type=type_hints["reclaim_within_cohort"])
            check_type(argname="argument within_cluster_queue", value=within_cluster_queue, expected_type=type_hints["within_cluster_queue"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if borrow_within_cohort is not None:
            self._values["borrow_within_cohort"] = borrow_within_cohort
        if reclaim_within_cohort is not None:
            self._values["reclaim_within_cohort"] = reclaim_within_cohort
        if within_cluster_queue is not None:
            self._values["within_cluster_queue"] = within_cluster_queue

    @builtins.property
    def borrow_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohort"]:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :schema: ClusterQueueSpecPreemption#borrowWithinCohort
        '''
        result = self._values.get("borrow_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohort"], result)

    @builtins.property
    def reclaim_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"]:
        '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the cohort.
        - ``LowerPriority``: **Classic Preemption** if the pending Workload
          fits within the nominal quota of its ClusterQueue, only preempt
          Workloads in the cohort that have lower priority than the pending
          Workload. **Fair Sharing** only preempt Workloads in the cohort that
          have lower priority than the pending Workload and that satisfy the
          Fair Sharing preemptionStategies.
        - ``Any``: **Classic Preemption** if the pending Workload fits within
          the nominal quota of its ClusterQueue, preempt any Workload in the
          cohort, irrespective of priority. **Fair Sharing** preempt Workloads
          in the cohort that satisfy the Fair Sharing preemptionStrategies.

        :schema: ClusterQueueSpecPreemption#reclaimWithinCohort
        '''
        result = self._values.get("reclaim_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"], result)

    @builtins.property
    def within_cluster_queue(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"]:
        '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
        - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
          lower priority than the pending Workload.
        - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
          either have a lower priority than the pending workload or equal priority
          and are newer than the pending workload.

        :schema: ClusterQueueSpecPreemption#withinClusterQueue
        '''
        result = self._values.get("within_cluster_queue")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecPreemption(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionBorrowWithinCohort",
    jsii_struct_bases=[],
    name_mapping={
        "max_priority_threshold": "maxPriorityThreshold",
        "policy": "policy",
    },
)
class ClusterQueueSpecPreemptionBorrowWithinCohort:
    def __init__(
        self,
        *,
        max_priority_threshold: typing.Optional[jsii.Number] = None,
        policy: typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"] = None,
    ) -> None:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :param max_priority_threshold: maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority. When the threshold is not specified, then any workload satisfying the policy can be preempted by the borrowing workload.
        :param policy: policy determines the policy for preemption to reclaim quota within cohort while borrowing. Possible values are: - ``Never`` (default): do not allow for preemption, in other ClusterQueues within the cohort, for a borrowing workload. - ``LowerPriority``: allow preemption, in other ClusterQueues within the cohort, for a borrowing workload, but only if the preempted workloads are of lower priority.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__94bf69a98bf04481ff9a2b71eacd706b606818f9b5c33bff482c47f19c0d8ace)
            check_type(argname="argument max_priority_threshold", value=max_priority_threshold, expected_type=type_hints["max_priority_threshold"])
            check_type(argname="argument policy", value=policy, expected_type=type_hints["policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if max_priority_threshold is not None:
            self._values["max_priority_threshold"] = max_priority_threshold
        if policy is not None:
            self._values["policy"] = policy

    @builtins.property
    def max_priority_threshold(self) -> typing.Optional[jsii.Number]:
        '''maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority.

        When the threshold is not specified, then any workload satisfying the
        policy can be preempted by the borrowing workload.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort#maxPriorityThreshold
        '''
        result = self._values.get("max_priority_threshold")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def policy(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"]:
        '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

        Possible values are:

        - ``Never`` (default): do not allow for preemption, in other
          ClusterQueues within the cohort, for a borrowing workload.
        - ``LowerPriority``: allow preemption, in other ClusterQueues
          within the cohort, for a borrowing workload, but only if
          the preempted workloads are of lower priority.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort#policy
        '''
        result = self._values.get("policy")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecPreemptionBorrowWithinCohort(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionBorrowWithinCohortPolicy")
class ClusterQueueSpecPreemptionBorrowWithinCohortPolicy(enum.Enum):
    '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

    Possible values are:

    - ``Never`` (default): do not allow for preemption, in other
      ClusterQueues within the cohort, for a borrowing workload.
    - ``LowerPriority``: allow preemption, in other ClusterQueues
      within the cohort, for a borrowing workload, but only if
      the preempted workloads are of lower priority.

    :schema: ClusterQueueSpecPreemptionBorrowWithinCohortPolicy
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionReclaimWithinCohort")
class ClusterQueueSpecPreemptionReclaimWithinCohort(enum.Enum):
    '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the cohort.
    - ``LowerPriority``: **Classic Preemption** if the pending Workload
      fits within the nominal quota of its ClusterQueue, only preempt
      Workloads in the cohort that have lower priority than the pending
      Workload. **Fair Sharing** only preempt Workloads in the cohort that
      have lower priority than the pending Workload and that satisfy the
      Fair Sharing preemptionStategies.
    - ``Any``: **Classic Preemption** if the pending Workload fits within
      the nominal quota of its ClusterQueue, preempt any Workload in the
      cohort, irrespective of priority. **Fair Sharing** preempt Workloads
      in the cohort that satisfy the Fair Sharing preemptionStrategies.

    :schema: ClusterQueueSpecPreemptionReclaimWithinCohort
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    ANY = "ANY"
    '''Any.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecPreemptionWithinClusterQueue")
class ClusterQueueSpecPreemptionWithinClusterQueue(enum.Enum):
    '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
    - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
      lower priority than the pending Workload.
    - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
      either have a lower priority than the pending workload or equal priority
      and are newer than the pending workload.

    :schema: ClusterQueueSpecPreemptionWithinClusterQueue
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LOWER_OR_NEWER_EQUAL_PRIORITY"
    '''LowerOrNewerEqualPriority.'''


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecQueueingStrategy")
class ClusterQueueSpecQueueingStrategy(enum.Enum):
    '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

    - StrictFIFO: workloads are ordered strictly by creation time.
      Older workloads that can't be admitted will block admitting newer
      workloads even if they fit available quota.
    - BestEffortFIFO: workloads are ordered by creation time,
      however older workloads that can't be admitted will not block
      admitting newer workloads that fit existing quota.

    :schema: ClusterQueueSpecQueueingStrategy
    '''

    STRICT_FIFO = "STRICT_FIFO"
    '''StrictFIFO.'''
    BEST_EFFORT_FIFO = "BEST_EFFORT_FIFO"
    '''BestEffortFIFO.'''


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class ClusterQueueSpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["ClusterQueueSpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ae276565131d0e8b124607a71372e013ff9c78f06cf97658863fd035bb0ccc98)
            check_type(argname="argument covered_resources", value=covered_resources, expected_type=type_hints["covered_resources"])
            check_type(argname="argument flavors", value=flavors, expected_type=type_hints["flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "covered_resources": covered_resources,
            "flavors": flavors,
        }

    @builtins.property
    def covered_resources(self) -> typing.List[builtins.str]:
        '''coveredResources is the list of resources covered by the flavors in this group.

        Examples: cpu, memory, vendor.com/gpu.
        The list cannot be empty and it can contain up to 64 resources. With a total
        of up to 256 covered resources across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["ClusterQueueSpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["ClusterQueueSpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class ClusterQueueSpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["ClusterQueueSpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: ClusterQueueSpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7e362c59a31742f01b9da82e4f6732394c7b5175cf10fd9dbee079dc6c5d7ede)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument resources", value=resources, expected_type=type_hints["resources"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "resources": resources,
        }

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this flavor.

        The name should match the .metadata.name of a
        ResourceFlavor. If a matching ResourceFlavor does not exist, the
        ClusterQueue will have an Active condition set to False.

        :schema: ClusterQueueSpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(
        self,
    ) -> typing.List["ClusterQueueSpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: ClusterQueueSpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["ClusterQueueSpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class ClusterQueueSpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohortName is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohortName is empty. This field is in beta stage and is enabled by default.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c13a852c1a108f510b1ba74af9cee318267d3960123ab1a680247eaec8ffce39)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument nominal_quota", value=nominal_quota, expected_type=type_hints["nominal_quota"])
            check_type(argname="argument borrowing_limit", value=borrowing_limit, expected_type=type_hints["borrowing_limit"])
            check_type(argname="argument lending_limit", value=lending_limit, expected_type=type_hints["lending_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "nominal_quota": nominal_quota,
        }
        if borrowing_limit is not None:
            self._values["borrowing_limit"] = borrowing_limit
        if lending_limit is not None:
            self._values["lending_limit"] = lending_limit

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this resource.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(
        self,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

        The nominalQuota must be non-negative.
        nominalQuota should represent the resources in the cluster available for
        running jobs (after discounting resources consumed by system components
        and pods not managed by kueue). In an autoscaled cluster, nominalQuota
        should account for resources that can be provided by a component such as
        Kubernetes cluster-autoscaler.

        If the ClusterQueue belongs to a cohort, the sum of the quotas for each
        (flavor, resource) combination defines the maximum quantity that can be
        allocated by a ClusterQueue in the cohort.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohortName is empty.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohortName is empty.
        This field is in beta stage and is enabled by default.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohortName is empty.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__53f50262790b1f3f9e8e5552d4fef3f2fbec0af98849df19fb7bba00a5d8f712)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__71ee74fba24b0b44da2ffc1bfc52e42b7cba4a143e2ee3cea8493f9fe17aef69)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohortName is empty.
    This field is in beta stage and is enabled by default.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7831a4cf402401a1306525b03e89f1d967b38b815af5a481014f9cec71a6d683)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__64bdf444de13e27e643af9f06453e9508283ece7a42f4d60824d4e82abb08430)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
):
    '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

    The nominalQuota must be non-negative.
    nominalQuota should represent the resources in the cluster available for
    running jobs (after discounting resources consumed by system components
    and pods not managed by kueue). In an autoscaled cluster, nominalQuota
    should account for resources that can be provided by a component such as
    Kubernetes cluster-autoscaler.

    If the ClusterQueue belongs to a cohort, the sum of the quotas for each
    (flavor, resource) combination defines the maximum quantity that can be
    allocated by a ClusterQueue in the cohort.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2a10d6b808fbf9ffff9a1131b953db0653c04cd2d78ce7cdf3150a53509a6886)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3c634211c25096abd028685ba3154edc2f801df17f210b9f02dbbe63edaff01d)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="iox-k8skueue.ClusterQueueSpecStopPolicy")
class ClusterQueueSpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: ClusterQueueSpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


class Cohort(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.Cohort",
):
    '''Cohort defines the Cohorts API.

    :schema: Cohort
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "Cohort" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the Cohort.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6e2e80cc1898add9cac105d10a9db0fbc681e409b177339ae7b9adcf1d5d1238)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = CohortProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "Cohort".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the Cohort.
        '''
        props = CohortProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "Cohort".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.CohortProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class CohortProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Cohort defines the Cohorts API.

        :param metadata: 
        :param spec: spec is the specification of the Cohort.

        :schema: Cohort
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = CohortSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__517a5505faa65aa7c18f33c0355f7c7224d2cea475a14b1f90ea89293f9ab35e)
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
        :schema: Cohort#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["CohortSpec"]:
        '''spec is the specification of the Cohort.

        :schema: Cohort#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["CohortSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.CohortSpec",
    jsii_struct_bases=[],
    name_mapping={
        "fair_sharing": "fairSharing",
        "parent_name": "parentName",
        "resource_groups": "resourceGroups",
    },
)
class CohortSpec:
    def __init__(
        self,
        *,
        fair_sharing: typing.Optional[typing.Union["CohortSpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        parent_name: typing.Optional[builtins.str] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["CohortSpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''spec is the specification of the Cohort.

        :param fair_sharing: fairSharing defines the properties of the Cohort when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param parent_name: parentName references the name of the Cohort's parent, if any. It satisfies one of three cases: 1. Unset. This Cohort is the root of its Cohort tree. 2. References a non-existent Cohort. We use default Cohort (no borrowing/lending limits). 3. References an existent Cohort. If a cycle is created, we disable all members of the Cohort, including ClusterQueues, until the cycle is removed. We prevent further admission while the cycle exists.
        :param resource_groups: resourceGroups describes groupings of Resources and Flavors. Each ResourceGroup defines a list of Resources and a list of Flavors which provide quotas for these Resources. Each Resource and each Flavor may only form part of one ResourceGroup. There may be up to 16 ResourceGroups within a Cohort. Please note that nominalQuota defined at the Cohort level represents additional resources on top of those defined by ClusterQueues within the Cohort. The Cohort's nominalQuota may be thought of as a shared pool for the ClusterQueues within it. Additionally, this quota may also be lent out to parent Cohort(s), subject to LendingLimit. BorrowingLimit limits how much members of this Cohort subtree can borrow from the parent subtree. LendingLimit limits how much members of this Cohort subtree can lend to the parent subtree. Borrowing and Lending limits must only be set when the Cohort has a parent. Otherwise, the Cohort create/update will be rejected by the webhook.

        :schema: CohortSpec
        '''
        if isinstance(fair_sharing, dict):
            fair_sharing = CohortSpecFairSharing(**fair_sharing)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bdc297292289dd4dc81cdce87b5f5498cbe9d42c253ebc4ff673cdcae80b2b8b)
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument parent_name", value=parent_name, expected_type=type_hints["parent_name"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if parent_name is not None:
            self._values["parent_name"] = parent_name
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups

    @builtins.property
    def fair_sharing(self) -> typing.Optional["CohortSpecFairSharing"]:
        '''fairSharing defines the properties of the Cohort when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: CohortSpec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["CohortSpecFairSharing"], result)

    @builtins.property
    def parent_name(self) -> typing.Optional[builtins.str]:
        '''parentName references the name of the Cohort's parent, if any.

        It satisfies one of three cases:

        1. Unset. This Cohort is the root of its Cohort tree.
        2. References a non-existent Cohort. We use default Cohort (no borrowing/lending limits).
        3. References an existent Cohort.

        If a cycle is created, we disable all members of the
        Cohort, including ClusterQueues, until the cycle is
        removed.  We prevent further admission while the cycle
        exists.

        :schema: CohortSpec#parentName
        '''
        result = self._values.get("parent_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["CohortSpecResourceGroups"]]:
        '''resourceGroups describes groupings of Resources and Flavors.

        Each ResourceGroup defines a list of Resources
        and a list of Flavors which provide quotas for these
        Resources. Each Resource and each Flavor may only form part
        of one ResourceGroup.  There may be up to 16 ResourceGroups
        within a Cohort.

        Please note that nominalQuota defined at the Cohort level
        represents additional resources on top of those defined by
        ClusterQueues within the Cohort. The Cohort's nominalQuota
        may be thought of as a shared pool for the ClusterQueues
        within it. Additionally, this quota may also be lent out to
        parent Cohort(s), subject to LendingLimit.

        BorrowingLimit limits how much members of this Cohort
        subtree can borrow from the parent subtree.

        LendingLimit limits how much members of this Cohort subtree
        can lend to the parent subtree.

        Borrowing and Lending limits must only be set when the
        Cohort has a parent.  Otherwise, the Cohort create/update
        will be rejected by the webhook.

        :schema: CohortSpec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["CohortSpecResourceGroups"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.CohortSpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class CohortSpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["CohortSpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the Cohort when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: CohortSpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__181b06282fe983ff4a90c149be187c9d02a546899965cd5b9ff06aa5ff51a7c3)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["CohortSpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: CohortSpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["CohortSpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class CohortSpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.CohortSpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: CohortSpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "CohortSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__493ffd4529ad87ba6c2c80ae78876b8dbbfcf2a38a044696ac37c021f42209dc)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "CohortSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__12ea40bde5f94a6ad69211107df614c41b7b7aef0f06a72b9e5e6b4772ce59c0)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="iox-k8skueue.CohortSpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class CohortSpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["CohortSpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: CohortSpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c5365595ddd3d1d878aced0565237976999f1b97408768728a5e7174a02b63d9)
            check_type(argname="argument covered_resources", value=covered_resources, expected_type=type_hints["covered_resources"])
            check_type(argname="argument flavors", value=flavors, expected_type=type_hints["flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "covered_resources": covered_resources,
            "flavors": flavors,
        }

    @builtins.property
    def covered_resources(self) -> typing.List[builtins.str]:
        '''coveredResources is the list of resources covered by the flavors in this group.

        Examples: cpu, memory, vendor.com/gpu.
        The list cannot be empty and it can contain up to 64 resources. With a total
        of up to 256 covered resources across all resource groups in the ClusterQueue.

        :schema: CohortSpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["CohortSpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: CohortSpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["CohortSpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.CohortSpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class CohortSpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["CohortSpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: CohortSpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1a8f00a0b59307005857de94a7650c523be56f2a32d76beeb5287f6752cacd7f)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument resources", value=resources, expected_type=type_hints["resources"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "resources": resources,
        }

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this flavor.

        The name should match the .metadata.name of a
        ResourceFlavor. If a matching ResourceFlavor does not exist, the
        ClusterQueue will have an Active condition set to False.

        :schema: CohortSpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(self) -> typing.List["CohortSpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: CohortSpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["CohortSpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.CohortSpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class CohortSpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "CohortSpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["CohortSpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohortName is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohortName is empty. This field is in beta stage and is enabled by default.

        :schema: CohortSpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d553e6a2eddf46091e7b69b79bfb0345f08f06c0797f2881f6b8dc6de9bb62e0)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument nominal_quota", value=nominal_quota, expected_type=type_hints["nominal_quota"])
            check_type(argname="argument borrowing_limit", value=borrowing_limit, expected_type=type_hints["borrowing_limit"])
            check_type(argname="argument lending_limit", value=lending_limit, expected_type=type_hints["lending_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "nominal_quota": nominal_quota,
        }
        if borrowing_limit is not None:
            self._values["borrowing_limit"] = borrowing_limit
        if lending_limit is not None:
            self._values["lending_limit"] = lending_limit

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this resource.

        :schema: CohortSpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(self) -> "CohortSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

        The nominalQuota must be non-negative.
        nominalQuota should represent the resources in the cluster available for
        running jobs (after discounting resources consumed by system components
        and pods not managed by kueue). In an autoscaled cluster, nominalQuota
        should account for resources that can be provided by a component such as
        Kubernetes cluster-autoscaler.

        If the ClusterQueue belongs to a cohort, the sum of the quotas for each
        (flavor, resource) combination defines the maximum quantity that can be
        allocated by a ClusterQueue in the cohort.

        :schema: CohortSpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohortName is empty.

        :schema: CohortSpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["CohortSpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohortName is empty.
        This field is in beta stage and is enabled by default.

        :schema: CohortSpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["CohortSpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohortName is empty.

    :schema: CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c08eabe1c87fb535cfadf4a102f4f8d55fc39730b62755944e7f7838fabbeb00)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__750540669c565ff98525b9b03309f0c99df9e6466d60f9e49a8ab796068ef61d)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class CohortSpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.CohortSpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohortName is empty.
    This field is in beta stage and is enabled by default.

    :schema: CohortSpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__453c6ab65be9fd2c22213276949fd4a58c2e856333bf4ae7960153377562cb8a)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a1d357401e3474508d7c6596e4771b4d56dcd7b185876bc88b17dd8c9b74f85e)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class CohortSpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.CohortSpecResourceGroupsFlavorsResourcesNominalQuota",
):
    '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

    The nominalQuota must be non-negative.
    nominalQuota should represent the resources in the cluster available for
    running jobs (after discounting resources consumed by system components
    and pods not managed by kueue). In an autoscaled cluster, nominalQuota
    should account for resources that can be provided by a component such as
    Kubernetes cluster-autoscaler.

    If the ClusterQueue belongs to a cohort, the sum of the quotas for each
    (flavor, resource) combination defines the maximum quantity that can be
    allocated by a ClusterQueue in the cohort.

    :schema: CohortSpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a1a35e3793e50208b9bdafbe57ef4ecb6c2f55dc42f3d51e6d00311cc58254b7)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0f2ae3ff5c2f66b9723e36fd6d1185e32f05284c0af8a2ec071e96cf366775dc)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class LocalQueue(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.LocalQueue",
):
    '''LocalQueue is the Schema for the localQueues API.

    :schema: LocalQueue
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "LocalQueue" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0923ce3af15908b2a4a35327ca0f02a8cc64b2f7ed48b77ef35ee444ced5b2b3)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = LocalQueueProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "LocalQueue".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.
        '''
        props = LocalQueueProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "LocalQueue".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class LocalQueueProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["LocalQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''LocalQueue is the Schema for the localQueues API.

        :param metadata: 
        :param spec: spec is the specification of the LocalQueue.

        :schema: LocalQueue
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = LocalQueueSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5fdcdb0ce070970d038c3961f3dffb6ef8c152152320380eff9c87bb006ec40e)
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
        :schema: LocalQueue#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["LocalQueueSpec"]:
        '''spec is the specification of the LocalQueue.

        :schema: LocalQueue#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["LocalQueueSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueSpec",
    jsii_struct_bases=[],
    name_mapping={
        "cluster_queue": "clusterQueue",
        "fair_sharing": "fairSharing",
        "stop_policy": "stopPolicy",
    },
)
class LocalQueueSpec:
    def __init__(
        self,
        *,
        cluster_queue: typing.Optional[builtins.str] = None,
        fair_sharing: typing.Optional[typing.Union["LocalQueueSpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        stop_policy: typing.Optional["LocalQueueSpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the LocalQueue.

        :param cluster_queue: clusterQueue is a reference to a clusterQueue that backs this localQueue.
        :param fair_sharing: fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing. The values are only relevant if AdmissionFairSharing is enabled in the Kueue configuration.
        :param stop_policy: stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: LocalQueueSpec
        '''
        if isinstance(fair_sharing, dict):
            fair_sharing = LocalQueueSpecFairSharing(**fair_sharing)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__934f01d1643edf3eaa51b4838e701da14397c6a0d4ca27f92860481415c2837a)
            check_type(argname="argument cluster_queue", value=cluster_queue, expected_type=type_hints["cluster_queue"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if cluster_queue is not None:
            self._values["cluster_queue"] = cluster_queue
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def cluster_queue(self) -> typing.Optional[builtins.str]:
        '''clusterQueue is a reference to a clusterQueue that backs this localQueue.

        :schema: LocalQueueSpec#clusterQueue
        '''
        result = self._values.get("cluster_queue")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["LocalQueueSpecFairSharing"]:
        '''fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing.

        The values are only relevant
        if AdmissionFairSharing is enabled in the Kueue configuration.

        :schema: LocalQueueSpec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["LocalQueueSpecFairSharing"], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["LocalQueueSpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: LocalQueueSpec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["LocalQueueSpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.LocalQueueSpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class LocalQueueSpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["LocalQueueSpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the LocalQueue when participating in AdmissionFairSharing.

        The values are only relevant
        if AdmissionFairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: LocalQueueSpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c1694b9a7a75dde53eb659f275253ad29e263a40e8b4c3d5e6a17cdd3af273db)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["LocalQueueSpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: LocalQueueSpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["LocalQueueSpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "LocalQueueSpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class LocalQueueSpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.LocalQueueSpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: LocalQueueSpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "LocalQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9bac0db158ec3e7384cc2f345b1dd46e23cb2f58ebbfb275dafa6535cb6a6182)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LocalQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "LocalQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__674ad5e9425746444da8b7f00f58afed6d8d0df521e716be7011c1e8196b5498)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("LocalQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="iox-k8skueue.LocalQueueSpecStopPolicy")
class LocalQueueSpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the LocalQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: LocalQueueSpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


class ResourceFlavor(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.ResourceFlavor",
):
    '''ResourceFlavor is the Schema for the resourceflavors API.

    :schema: ResourceFlavor
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ResourceFlavor" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7ab10ef249d4e31596e8cf49ea20330cb300560c74efd8e8848e3b7161685401)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ResourceFlavorProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ResourceFlavor".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        props = ResourceFlavorProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ResourceFlavor".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ResourceFlavorProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ResourceFlavor is the Schema for the resourceflavors API.

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavor
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ResourceFlavorSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e080479a90b3411a5db8b388860c66293cf6ba693ddc64d77d6c8727eaf522d5)
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
        :schema: ResourceFlavor#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ResourceFlavorSpec"]:
        '''spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavor#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ResourceFlavorSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorSpec",
    jsii_struct_bases=[],
    name_mapping={
        "node_labels": "nodeLabels",
        "node_taints": "nodeTaints",
        "tolerations": "tolerations",
        "topology_name": "topologyName",
    },
)
class ResourceFlavorSpec:
    def __init__(
        self,
        *,
        node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        node_taints: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorSpecNodeTaints", typing.Dict[builtins.str, typing.Any]]]] = None,
        tolerations: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorSpecTolerations", typing.Dict[builtins.str, typing.Any]]]] = None,
        topology_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''spec is the specification of the ResourceFlavor.

        :param node_labels: nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels. When a Workload is admitted, its podsets can only get assigned ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity fields. Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's nodeLabels should be injected into the pods of the Workload by the controller that integrates with the Workload object. nodeLabels can be up to 8 elements.
        :param node_taints: nodeTaints are taints that the nodes associated with this ResourceFlavor have. Workloads' podsets must have tolerations for these nodeTaints in order to get assigned this ResourceFlavor during admission. When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations), then the nodeTaints are not considered during admission. Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated, while 'PreferNoSchedule' is ignored. An example of a nodeTaint is cloud.provider.com/preemptible="true":NoSchedule nodeTaints can be up to 8 elements.
        :param tolerations: tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor. An example of a toleration is cloud.provider.com/preemptible="true":NoSchedule tolerations can be up to 8 elements.
        :param topology_name: topologyName indicates topology for the TAS ResourceFlavor. When specified, it enables scraping of the topology information from the nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorSpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__dc0191eec00e82d98b0083067457581e58266c424ad510a77c9621ec695bdbbd)
            check_type(argname="argument node_labels", value=node_labels, expected_type=type_hints["node_labels"])
            check_type(argname="argument node_taints", value=node_taints, expected_type=type_hints["node_taints"])
            check_type(argname="argument tolerations", value=tolerations, expected_type=type_hints["tolerations"])
            check_type(argname="argument topology_name", value=topology_name, expected_type=type_hints["topology_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node_labels is not None:
            self._values["node_labels"] = node_labels
        if node_taints is not None:
            self._values["node_taints"] = node_taints
        if tolerations is not None:
            self._values["tolerations"] = tolerations
        if topology_name is not None:
            self._values["topology_name"] = topology_name

    @builtins.property
    def node_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels.

        When a Workload is admitted, its podsets can only get assigned
        ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity
        fields.
        Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's
        nodeLabels should be injected into the pods of the Workload by the
        controller that integrates with the Workload object.

        nodeLabels can be up to 8 elements.

        :schema: ResourceFlavorSpec#nodeLabels
        '''
        result = self._values.get("node_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def node_taints(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorSpecNodeTaints"]]:
        '''nodeTaints are taints that the nodes associated with this ResourceFlavor have.

        Workloads' podsets must have tolerations for these nodeTaints in order to
        get assigned this ResourceFlavor during admission.
        When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations),
        then the nodeTaints are not considered during admission.
        Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated,
        while 'PreferNoSchedule' is ignored.

        An example of a nodeTaint is
        cloud.provider.com/preemptible="true":NoSchedule

        nodeTaints can be up to 8 elements.

        :schema: ResourceFlavorSpec#nodeTaints
        '''
        result = self._values.get("node_taints")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorSpecNodeTaints"]], result)

    @builtins.property
    def tolerations(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorSpecTolerations"]]:
        '''tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor.

        An example of a toleration is
        cloud.provider.com/preemptible="true":NoSchedule

        tolerations can be up to 8 elements.

        :schema: ResourceFlavorSpec#tolerations
        '''
        result = self._values.get("tolerations")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorSpecTolerations"]], result)

    @builtins.property
    def topology_name(self) -> typing.Optional[builtins.str]:
        '''topologyName indicates topology for the TAS ResourceFlavor.

        When specified, it enables scraping of the topology information from the
        nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorSpec#topologyName
        '''
        result = self._values.get("topology_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorSpecNodeTaints",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "time_added": "timeAdded",
        "value": "value",
    },
)
class ResourceFlavorSpecNodeTaints:
    def __init__(
        self,
        *,
        effect: builtins.str,
        key: builtins.str,
        time_added: typing.Optional[datetime.datetime] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.

        :param effect: Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Required. The taint key to be applied to a node.
        :param time_added: TimeAdded represents the time at which the taint was added.
        :param value: The taint value corresponding to the taint key.

        :schema: ResourceFlavorSpecNodeTaints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__000c88a6fb1ba89d4adf6130802a833f6a8144e61a959bdc9f2e8f4ee408f650)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument time_added", value=time_added, expected_type=type_hints["time_added"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "effect": effect,
            "key": key,
        }
        if time_added is not None:
            self._values["time_added"] = time_added
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> builtins.str:
        '''Required.

        The effect of the taint on pods
        that do not tolerate the taint.
        Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorSpecNodeTaints#effect
        '''
        result = self._values.get("effect")
        assert result is not None, "Required property 'effect' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def key(self) -> builtins.str:
        '''Required.

        The taint key to be applied to a node.

        :schema: ResourceFlavorSpecNodeTaints#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def time_added(self) -> typing.Optional[datetime.datetime]:
        '''TimeAdded represents the time at which the taint was added.

        :schema: ResourceFlavorSpecNodeTaints#timeAdded
        '''
        result = self._values.get("time_added")
        return typing.cast(typing.Optional[datetime.datetime], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''The taint value corresponding to the taint key.

        :schema: ResourceFlavorSpecNodeTaints#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpecNodeTaints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.ResourceFlavorSpecTolerations",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "operator": "operator",
        "toleration_seconds": "tolerationSeconds",
        "value": "value",
    },
)
class ResourceFlavorSpecTolerations:
    def __init__(
        self,
        *,
        effect: typing.Optional[builtins.str] = None,
        key: typing.Optional[builtins.str] = None,
        operator: typing.Optional[builtins.str] = None,
        toleration_seconds: typing.Optional[jsii.Number] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator .

        :param effect: Effect indicates the taint effect to match. Empty means match all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is empty, operator must be Exists; this combination means to match all values and all keys.
        :param operator: Operator represents a key's relationship to the value. Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal. Exists is equivalent to wildcard for value, so that a pod can tolerate all taints of a particular category. Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators). Default: Equal.
        :param toleration_seconds: TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means tolerate the taint forever (do not evict). Zero and negative values will be treated as 0 (evict immediately) by the system.
        :param value: Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorSpecTolerations
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__20a69c7c90d7c925261688d500272140a4baadb8a40fa76647b429f35766bc37)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument toleration_seconds", value=toleration_seconds, expected_type=type_hints["toleration_seconds"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if effect is not None:
            self._values["effect"] = effect
        if key is not None:
            self._values["key"] = key
        if operator is not None:
            self._values["operator"] = operator
        if toleration_seconds is not None:
            self._values["toleration_seconds"] = toleration_seconds
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> typing.Optional[builtins.str]:
        '''Effect indicates the taint effect to match.

        Empty means match all taint effects.
        When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorSpecTolerations#effect
        '''
        result = self._values.get("effect")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key(self) -> typing.Optional[builtins.str]:
        '''Key is the taint key that the toleration applies to.

        Empty means match all taint keys.
        If the key is empty, operator must be Exists; this combination means to match all values and all keys.

        :schema: ResourceFlavorSpecTolerations#key
        '''
        result = self._values.get("key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def operator(self) -> typing.Optional[builtins.str]:
        '''Operator represents a key's relationship to the value.

        Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal.
        Exists is equivalent to wildcard for value, so that a pod can
        tolerate all taints of a particular category.
        Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators).

        :default: Equal.

        :schema: ResourceFlavorSpecTolerations#operator
        '''
        result = self._values.get("operator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def toleration_seconds(self) -> typing.Optional[jsii.Number]:
        '''TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint.

        By default,
        it is not set, which means tolerate the taint forever (do not evict). Zero and
        negative values will be treated as 0 (evict immediately) by the system.

        :schema: ResourceFlavorSpecTolerations#tolerationSeconds
        '''
        result = self._values.get("toleration_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''Value is the taint value the toleration matches to.

        If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorSpecTolerations#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpecTolerations(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class Topology(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.Topology",
):
    '''Topology is the Schema for the topology API.

    :schema: Topology
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologySpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "Topology" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the Topology.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7175d040b9170f292bc5d0ac5b6b150c0453adb4f1f09e2e7974aa928149fb64)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = TopologyProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologySpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "Topology".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the Topology.
        '''
        props = TopologyProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "Topology".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologyProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class TopologyProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["TopologySpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Topology is the Schema for the topology API.

        :param metadata: 
        :param spec: spec is the specification of the Topology.

        :schema: Topology
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = TopologySpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__28a1bfb4d754e0abcfc72132d4ba9915b7c8c545d37a061f1efb49b70506a278)
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
        :schema: Topology#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["TopologySpec"]:
        '''spec is the specification of the Topology.

        :schema: Topology#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["TopologySpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologyProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologySpec",
    jsii_struct_bases=[],
    name_mapping={"levels": "levels"},
)
class TopologySpec:
    def __init__(
        self,
        *,
        levels: typing.Sequence[typing.Union["TopologySpecLevels", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''spec is the specification of the Topology.

        :param levels: levels define the levels of topology.

        :schema: TopologySpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d22a8d7012063bddb9f86012ea763056b87e0431677ed3e69b3818dd9f73b00e)
            check_type(argname="argument levels", value=levels, expected_type=type_hints["levels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "levels": levels,
        }

    @builtins.property
    def levels(self) -> typing.List["TopologySpecLevels"]:
        '''levels define the levels of topology.

        :schema: TopologySpec#levels
        '''
        result = self._values.get("levels")
        assert result is not None, "Required property 'levels' is missing"
        return typing.cast(typing.List["TopologySpecLevels"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologySpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="iox-k8skueue.TopologySpecLevels",
    jsii_struct_bases=[],
    name_mapping={"node_label": "nodeLabel"},
)
class TopologySpecLevels:
    def __init__(self, *, node_label: builtins.str) -> None:
        '''TopologyLevel defines the desired state of TopologyLevel.

        :param node_label: nodeLabel indicates the name of the node label for a specific topology level. Examples: - cloud.provider.com/topology-block - cloud.provider.com/topology-rack

        :schema: TopologySpecLevels
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__345551ae9b762c0b23b2a834bf0bd13f240c5d6e64c3d518e2eb8297524c26e8)
            check_type(argname="argument node_label", value=node_label, expected_type=type_hints["node_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "node_label": node_label,
        }

    @builtins.property
    def node_label(self) -> builtins.str:
        '''nodeLabel indicates the name of the node label for a specific topology level.

        Examples:

        - cloud.provider.com/topology-block
        - cloud.provider.com/topology-rack

        :schema: TopologySpecLevels#nodeLabel
        '''
        result = self._values.get("node_label")
        assert result is not None, "Required property 'node_label' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "TopologySpecLevels(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class WorkloadPriorityClass(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="iox-k8skueue.WorkloadPriorityClass",
):
    '''WorkloadPriorityClass is the Schema for the workloadPriorityClass API.

    :schema: WorkloadPriorityClass
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "WorkloadPriorityClass" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used. The description is limited to a maximum of 2048 characters.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ae72d8f2b1c7b67be9671392813471265f0a96c4522a614ad3c09349340bcb8a)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = WorkloadPriorityClassProps(
            value=value, description=description, metadata=metadata
        )

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "WorkloadPriorityClass".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used. The description is limited to a maximum of 2048 characters.
        :param metadata: 
        '''
        props = WorkloadPriorityClassProps(
            value=value, description=description, metadata=metadata
        )

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "WorkloadPriorityClass".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="iox-k8skueue.WorkloadPriorityClassProps",
    jsii_struct_bases=[],
    name_mapping={
        "value": "value",
        "description": "description",
        "metadata": "metadata",
    },
)
class WorkloadPriorityClassProps:
    def __init__(
        self,
        *,
        value: jsii.Number,
        description: typing.Optional[builtins.str] = None,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''WorkloadPriorityClass is the Schema for the workloadPriorityClass API.

        :param value: value represents the integer value of this workloadPriorityClass. This is the actual priority that workloads receive when jobs have the name of this class in their workloadPriorityClass label. Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.
        :param description: description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used. The description is limited to a maximum of 2048 characters.
        :param metadata: 

        :schema: WorkloadPriorityClass
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ff8538e4383b42fabd60e47cf637b0811fde79e5861be1b64ca627cf3b5f688d)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
            check_type(argname="argument description", value=description, expected_type=type_hints["description"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "value": value,
        }
        if description is not None:
            self._values["description"] = description
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def value(self) -> jsii.Number:
        '''value represents the integer value of this workloadPriorityClass.

        This is the actual priority that workloads
        receive when jobs have the name of this class in their workloadPriorityClass label.
        Changing the value of workloadPriorityClass doesn't affect the priority of workloads that were already created.

        :schema: WorkloadPriorityClass#value
        '''
        result = self._values.get("value")
        assert result is not None, "Required property 'value' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def description(self) -> typing.Optional[builtins.str]:
        '''description is an arbitrary string that usually provides guidelines on when this workloadPriorityClass should be used.

        The description is limited to a maximum of 2048 characters.

        :schema: WorkloadPriorityClass#description
        '''
        result = self._values.get("description")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: WorkloadPriorityClass#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "WorkloadPriorityClassProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "ClusterQueue",
    "ClusterQueueProps",
    "ClusterQueueSpec",
    "ClusterQueueSpecAdmissionChecksStrategy",
    "ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks",
    "ClusterQueueSpecAdmissionScope",
    "ClusterQueueSpecAdmissionScopeAdmissionMode",
    "ClusterQueueSpecConcurrentAdmissionPolicy",
    "ClusterQueueSpecConcurrentAdmissionPolicyMigration",
    "ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints",
    "ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode",
    "ClusterQueueSpecFairSharing",
    "ClusterQueueSpecFairSharingWeight",
    "ClusterQueueSpecFlavorFungibility",
    "ClusterQueueSpecFlavorFungibilityPreference",
    "ClusterQueueSpecFlavorFungibilityWhenCanBorrow",
    "ClusterQueueSpecFlavorFungibilityWhenCanPreempt",
    "ClusterQueueSpecNamespaceSelector",
    "ClusterQueueSpecNamespaceSelectorMatchExpressions",
    "ClusterQueueSpecPreemption",
    "ClusterQueueSpecPreemptionBorrowWithinCohort",
    "ClusterQueueSpecPreemptionBorrowWithinCohortPolicy",
    "ClusterQueueSpecPreemptionReclaimWithinCohort",
    "ClusterQueueSpecPreemptionWithinClusterQueue",
    "ClusterQueueSpecQueueingStrategy",
    "ClusterQueueSpecResourceGroups",
    "ClusterQueueSpecResourceGroupsFlavors",
    "ClusterQueueSpecResourceGroupsFlavorsResources",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
    "ClusterQueueSpecStopPolicy",
    "Cohort",
    "CohortProps",
    "CohortSpec",
    "CohortSpecFairSharing",
    "CohortSpecFairSharingWeight",
    "CohortSpecResourceGroups",
    "CohortSpecResourceGroupsFlavors",
    "CohortSpecResourceGroupsFlavorsResources",
    "CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "CohortSpecResourceGroupsFlavorsResourcesLendingLimit",
    "CohortSpecResourceGroupsFlavorsResourcesNominalQuota",
    "LocalQueue",
    "LocalQueueProps",
    "LocalQueueSpec",
    "LocalQueueSpecFairSharing",
    "LocalQueueSpecFairSharingWeight",
    "LocalQueueSpecStopPolicy",
    "ResourceFlavor",
    "ResourceFlavorProps",
    "ResourceFlavorSpec",
    "ResourceFlavorSpecNodeTaints",
    "ResourceFlavorSpecTolerations",
    "Topology",
    "TopologyProps",
    "TopologySpec",
    "TopologySpecLevels",
    "WorkloadPriorityClass",
    "WorkloadPriorityClassProps",
]

publication.publish()

def _typecheckingstub__a4d4299d0c519d9e192957aea2128640ba63416e9595b63aefc69a5781b1410e(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0d253e8ef936fa7ad597345c72c17092bf9cf15e791d65f4f3521b2494741de9(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b99250b7d4571f1892dd2329afe9053e3af4493f6a2de73c8cbf9abdfd12b3f6(
    *,
    admission_checks_strategy: typing.Optional[typing.Union[ClusterQueueSpecAdmissionChecksStrategy, typing.Dict[builtins.str, typing.Any]]] = None,
    admission_scope: typing.Optional[typing.Union[ClusterQueueSpecAdmissionScope, typing.Dict[builtins.str, typing.Any]]] = None,
    cohort_name: typing.Optional[builtins.str] = None,
    concurrent_admission_policy: typing.Optional[typing.Union[ClusterQueueSpecConcurrentAdmissionPolicy, typing.Dict[builtins.str, typing.Any]]] = None,
    fair_sharing: typing.Optional[typing.Union[ClusterQueueSpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    flavor_fungibility: typing.Optional[typing.Union[ClusterQueueSpecFlavorFungibility, typing.Dict[builtins.str, typing.Any]]] = None,
    namespace_selector: typing.Optional[typing.Union[ClusterQueueSpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    preemption: typing.Optional[typing.Union[ClusterQueueSpecPreemption, typing.Dict[builtins.str, typing.Any]]] = None,
    queueing_strategy: typing.Optional[ClusterQueueSpecQueueingStrategy] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
    stop_policy: typing.Optional[ClusterQueueSpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cada476e4694e2e4fc21322455ffcb93fcd53c1551447271d5987104f24b7fe6(
    *,
    admission_checks: typing.Sequence[typing.Union[ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__23ce63cf2e817ebbe2098194c102283b1143f45770181b85d4598f30142606c7(
    *,
    name: builtins.str,
    on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b4f1bba1b54c5e125d4d05cf158c91272466cfefdfeb6212f83c87b3d1d1ce84(
    *,
    admission_mode: ClusterQueueSpecAdmissionScopeAdmissionMode,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ee3855a50d88f8864f703b3da21748a9d7c5b6d96140c88e18d024ab3a6aaf09(
    *,
    migration: typing.Union[ClusterQueueSpecConcurrentAdmissionPolicyMigration, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__818ffabd32e883ba14ea536d244930719c2a4a802e7ec1caf281308ae336166c(
    *,
    mode: ClusterQueueSpecConcurrentAdmissionPolicyMigrationMode,
    constraints: typing.Optional[typing.Union[ClusterQueueSpecConcurrentAdmissionPolicyMigrationConstraints, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__900d87898566299ed6f3d5f2fdbe19952784e9c47d59e190607e95d831136b46(
    *,
    last_acceptable_flavor_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__fd9fb3b32bd22e4fc51d0214f0f154d2fdb351a3a1125bbee6396e44d746a148(
    *,
    weight: typing.Optional[ClusterQueueSpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ca2961666971173c41bbe105a732cfb10638ed66c4b0a0c7e782ca691a3f06bb(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d68791cc3be4584d475a0a38997a13627c4b0bb5da57db590624f9ad37af9886(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__36cd6e618a44078371f8e91f8447b2b24a2755c0a7b084b255f9b2e67b37dedc(
    *,
    preference: typing.Optional[ClusterQueueSpecFlavorFungibilityPreference] = None,
    when_can_borrow: typing.Optional[ClusterQueueSpecFlavorFungibilityWhenCanBorrow] = None,
    when_can_preempt: typing.Optional[ClusterQueueSpecFlavorFungibilityWhenCanPreempt] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7326d7756459331a0ee25fb65ed8fc72a2c19b5e1c0d5d02c5a23121c1b126ba(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecNamespaceSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__796da06ac2d044dc59c7a42e3571ecb0137fd1fb75294636576d78ff33683e9c(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__befcd4779c8c5c38566e91ee504ea385afb130ee7be710097002ba2c1eb451d6(
    *,
    borrow_within_cohort: typing.Optional[typing.Union[ClusterQueueSpecPreemptionBorrowWithinCohort, typing.Dict[builtins.str, typing.Any]]] = None,
    reclaim_within_cohort: typing.Optional[ClusterQueueSpecPreemptionReclaimWithinCohort] = None,
    within_cluster_queue: typing.Optional[ClusterQueueSpecPreemptionWithinClusterQueue] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__94bf69a98bf04481ff9a2b71eacd706b606818f9b5c33bff482c47f19c0d8ace(
    *,
    max_priority_threshold: typing.Optional[jsii.Number] = None,
    policy: typing.Optional[ClusterQueueSpecPreemptionBorrowWithinCohortPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ae276565131d0e8b124607a71372e013ff9c78f06cf97658863fd035bb0ccc98(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[ClusterQueueSpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7e362c59a31742f01b9da82e4f6732394c7b5175cf10fd9dbee079dc6c5d7ede(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[ClusterQueueSpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c13a852c1a108f510b1ba74af9cee318267d3960123ab1a680247eaec8ffce39(
    *,
    name: builtins.str,
    nominal_quota: ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__53f50262790b1f3f9e8e5552d4fef3f2fbec0af98849df19fb7bba00a5d8f712(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__71ee74fba24b0b44da2ffc1bfc52e42b7cba4a143e2ee3cea8493f9fe17aef69(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7831a4cf402401a1306525b03e89f1d967b38b815af5a481014f9cec71a6d683(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__64bdf444de13e27e643af9f06453e9508283ece7a42f4d60824d4e82abb08430(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2a10d6b808fbf9ffff9a1131b953db0653c04cd2d78ce7cdf3150a53509a6886(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3c634211c25096abd028685ba3154edc2f801df17f210b9f02dbbe63edaff01d(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6e2e80cc1898add9cac105d10a9db0fbc681e409b177339ae7b9adcf1d5d1238(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[CohortSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__517a5505faa65aa7c18f33c0355f7c7224d2cea475a14b1f90ea89293f9ab35e(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[CohortSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bdc297292289dd4dc81cdce87b5f5498cbe9d42c253ebc4ff673cdcae80b2b8b(
    *,
    fair_sharing: typing.Optional[typing.Union[CohortSpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    parent_name: typing.Optional[builtins.str] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[CohortSpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__181b06282fe983ff4a90c149be187c9d02a546899965cd5b9ff06aa5ff51a7c3(
    *,
    weight: typing.Optional[CohortSpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__493ffd4529ad87ba6c2c80ae78876b8dbbfcf2a38a044696ac37c021f42209dc(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__12ea40bde5f94a6ad69211107df614c41b7b7aef0f06a72b9e5e6b4772ce59c0(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c5365595ddd3d1d878aced0565237976999f1b97408768728a5e7174a02b63d9(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[CohortSpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1a8f00a0b59307005857de94a7650c523be56f2a32d76beeb5287f6752cacd7f(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[CohortSpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d553e6a2eddf46091e7b69b79bfb0345f08f06c0797f2881f6b8dc6de9bb62e0(
    *,
    name: builtins.str,
    nominal_quota: CohortSpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[CohortSpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c08eabe1c87fb535cfadf4a102f4f8d55fc39730b62755944e7f7838fabbeb00(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__750540669c565ff98525b9b03309f0c99df9e6466d60f9e49a8ab796068ef61d(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__453c6ab65be9fd2c22213276949fd4a58c2e856333bf4ae7960153377562cb8a(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a1d357401e3474508d7c6596e4771b4d56dcd7b185876bc88b17dd8c9b74f85e(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a1a35e3793e50208b9bdafbe57ef4ecb6c2f55dc42f3d51e6d00311cc58254b7(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0f2ae3ff5c2f66b9723e36fd6d1185e32f05284c0af8a2ec071e96cf366775dc(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0923ce3af15908b2a4a35327ca0f02a8cc64b2f7ed48b77ef35ee444ced5b2b3(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LocalQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5fdcdb0ce070970d038c3961f3dffb6ef8c152152320380eff9c87bb006ec40e(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[LocalQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__934f01d1643edf3eaa51b4838e701da14397c6a0d4ca27f92860481415c2837a(
    *,
    cluster_queue: typing.Optional[builtins.str] = None,
    fair_sharing: typing.Optional[typing.Union[LocalQueueSpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    stop_policy: typing.Optional[LocalQueueSpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c1694b9a7a75dde53eb659f275253ad29e263a40e8b4c3d5e6a17cdd3af273db(
    *,
    weight: typing.Optional[LocalQueueSpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9bac0db158ec3e7384cc2f345b1dd46e23cb2f58ebbfb275dafa6535cb6a6182(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__674ad5e9425746444da8b7f00f58afed6d8d0df521e716be7011c1e8196b5498(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7ab10ef249d4e31596e8cf49ea20330cb300560c74efd8e8848e3b7161685401(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e080479a90b3411a5db8b388860c66293cf6ba693ddc64d77d6c8727eaf522d5(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__dc0191eec00e82d98b0083067457581e58266c424ad510a77c9621ec695bdbbd(
    *,
    node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    node_taints: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorSpecNodeTaints, typing.Dict[builtins.str, typing.Any]]]] = None,
    tolerations: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorSpecTolerations, typing.Dict[builtins.str, typing.Any]]]] = None,
    topology_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__000c88a6fb1ba89d4adf6130802a833f6a8144e61a959bdc9f2e8f4ee408f650(
    *,
    effect: builtins.str,
    key: builtins.str,
    time_added: typing.Optional[datetime.datetime] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__20a69c7c90d7c925261688d500272140a4baadb8a40fa76647b429f35766bc37(
    *,
    effect: typing.Optional[builtins.str] = None,
    key: typing.Optional[builtins.str] = None,
    operator: typing.Optional[builtins.str] = None,
    toleration_seconds: typing.Optional[jsii.Number] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7175d040b9170f292bc5d0ac5b6b150c0453adb4f1f09e2e7974aa928149fb64(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[TopologySpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__28a1bfb4d754e0abcfc72132d4ba9915b7c8c545d37a061f1efb49b70506a278(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[TopologySpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d22a8d7012063bddb9f86012ea763056b87e0431677ed3e69b3818dd9f73b00e(
    *,
    levels: typing.Sequence[typing.Union[TopologySpecLevels, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__345551ae9b762c0b23b2a834bf0bd13f240c5d6e64c3d518e2eb8297524c26e8(
    *,
    node_label: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ae72d8f2b1c7b67be9671392813471265f0a96c4522a614ad3c09349340bcb8a(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    value: jsii.Number,
    description: typing.Optional[builtins.str] = None,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ff8538e4383b42fabd60e47cf637b0811fde79e5861be1b64ca627cf3b5f688d(
    *,
    value: jsii.Number,
    description: typing.Optional[builtins.str] = None,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass
